/** End-to-end tests in a real n8n process (see scripts/install-n8n.sh). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
	testTimeout: 600000,
	maxWorkers: 1,
};
