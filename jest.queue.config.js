/**
 * Queue-mode test bed (`npm run test:queue`): n8n 1.123.81 main + 2 workers on Redis and
 * PostgreSQL of their own, against the emulator. One test file starts and stops everything
 * (test/queue/queue.test.ts); see test/queue/README.md.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	// tsconfig.json has isolatedModules: ts-jest then transpiles each file on its own (fast).
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
	testTimeout: 600000,
	maxWorkers: 1,
};
