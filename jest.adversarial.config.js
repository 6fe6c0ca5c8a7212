/**
 * `npm run test:adversarial`: the promises under attack and broken parts — forged and replayed
 * webhooks, Redis through a TCP proxy (cut, silent, slow), hostile input and memory bounds (run with
 * --expose-gc). Each case records what it counted (test/adversarial/tally.ts); the reporter prints
 * one line: `adversarial: N cases, 0 sent twice, 0 lost, 0 forged accepted, peak heap per waiting
 * execution X KB`.
 */
module.exports = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	setupFiles: ['<rootDir>/test/helpers/jest.setup.ts'],
	roots: ['<rootDir>/test/adversarial'],
	testMatch: ['**/*.test.ts'],
	testTimeout: 120000,
	// The cases cut, silence and slow Redis on purpose: ioredis clients whose server vanished keep
	// reconnect timers that outlive the last test, and jest would wait on them for ever.
	forceExit: true,
	reporters: ['default', '<rootDir>/test/adversarial/tallyReporter.js'],
};
