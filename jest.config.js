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
	// jest's default workers (one fewer than the cores: 1 on the project's 2 cores; 565 s). Three
	// workers took 209 s in one run, but in the next the files that start Redis servers, a Redis
	// Cluster and ts-node child processes met at once (load average 42 on 2 cores) and 21 timing-
	// bound tests failed: not until those files are kept apart from each other.
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
