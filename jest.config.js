/**
 * `npm test`: every test that needs nothing beyond `npm ci`, in two projects:
 * - unit: rules/, api/ against a fake n8n request helper, sending/ with the in-process ledger,
 *   the executor and the layer rules, in seconds (`npm run test:unit`);
 * - integration: the nodes in n8n-core's real contexts against the emulator over real HTTP, the
 *   limiter with a real Redis, the emulator itself.
 */
const shared = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	setupFiles: ['<rootDir>/test/helpers/jest.setup.ts'],
};

module.exports = {
	reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
	testTimeout: 30000,
	// Most files wait (on the plan's rate, timers, Redis and child processes) more than they compute:
	// on the project's 2 cores, 3 workers ran the whole of npm test in 209 s against 565 s with
	// jest's default of one worker fewer than the cores, every test passing in both.
	maxWorkers: '150%',
	projects: [
		{ ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.test.ts'] },
		{
			...shared,
			displayName: 'integration',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/', '<rootDir>/test/e2e/', '<rootDir>/test/queue/', '<rootDir>/test/editor/', '<rootDir>/test/adversarial/', '<rootDir>/test/packages/'],
		},
	],
};
