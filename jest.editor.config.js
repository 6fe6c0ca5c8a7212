/**
 * The editor in headless Chromium against a real n8n (test/editor/; n8n 2.41.1, N8N_E2E_TARGET=1 for n8n 1.123.81).
 * One n8n, one emulator and one browser for the file; screenshots in .editor-screenshots/.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/editor'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 120000,
	maxWorkers: 1,
};
