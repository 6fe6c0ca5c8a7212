/**
 * n8n's environment-managed community packages (`npm run test:packages`): real n8n 2.41.1 installs,
 * updates and removes the package at start-up from a local npm registry (test/packages/), in regular
 * mode and in queue mode. Each file starts its own registry, emulator and n8n processes.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/packages'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
	testTimeout: 300000,
	maxWorkers: 1,
};
