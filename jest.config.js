/** Unit and integration tests: everything that needs nothing beyond `npm ci`. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/', '<rootDir>/test/queue/', '<rootDir>/test/editor/'],
	reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	setupFiles: ['<rootDir>/test/helpers/jest.setup.ts'],
	testTimeout: 30000,
};
