/**
 * The editor in headless Chromium against a real n8n (test/editor/; n8n 2.41.1, N8N_E2E_TARGET=1 for n8n 1.123.81).
 * One n8n and one emulator for the files (globalSetup.ts; communityPackages.test.ts starts its own),
 * one browser per file; screenshots in .editor-screenshots/.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/editor'],
	testMatch: ['**/*.test.ts'],
	// communityPackages.test.ts runs on n8n 2 only: it needs n8n's E2E_TESTS switch (the custom
	// registry is licence-gated), and n8n 1.123.81 in that mode answers 404 to POST /rest/api-keys,
	// which the harness's owner set-up uses. Not looked into further.
	testPathIgnorePatterns: process.env.N8N_E2E_TARGET === '1' ? ['/node_modules/', '/communityPackages\\.test\\.ts$'] : ['/node_modules/'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	globalSetup: '<rootDir>/test/editor/globalSetup.ts',
	globalTeardown: '<rootDir>/test/editor/globalTeardown.ts',
	testTimeout: 120000,
	maxWorkers: 1,
};
