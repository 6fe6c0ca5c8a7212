/**
 * End-to-end tests in a real n8n process (installed by scripts/install-n8n.sh; N8N_E2E_TARGET=1
 * selects n8n 1.123.81, default n8n 2.41.1). One emulator and one n8n serve every test file (test/e2e/globalSetup.ts); the
 * files run one after the other because they share both.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	// tsconfig.json has isolatedModules: ts-jest then transpiles each file on its own (fast).
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.ts',
	testTimeout: 180000,
	maxWorkers: 1,
};
