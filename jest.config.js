/**
 * `npm test`: every test that needs nothing beyond `npm ci`, in three projects:
 * - unit: rules/, api/ against a fake n8n request helper, sending/ with the in-process ledger,
 *   the executor and the layer rules, in seconds (`npm run test:unit`);
 * - integration: the nodes in n8n-core's real contexts against the emulator over real HTTP, the
 *   emulator itself;
 * - processes: the files that start processes (Redis servers, Redis Clusters, Redis over TLS,
 *   ts-node children): the limiter and the ledger with a real Redis, the CLI emulator.
 *
 * test/helpers/laneRunner.js runs the processes files one at a time in one worker while the other
 * files run in the other workers: 3 workers on the project's 2 cores (npm test waits on timers,
 * sockets and rate limits far more than it computes: one worker used 28 % of a core for 600 s).
 * test/jestLanes.test.ts checks that every file starting a process is in the processes project.
 */
const shared = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	setupFiles: ['<rootDir>/test/helpers/jest.setup.ts'],
	runner: '<rootDir>/test/helpers/laneRunner.js',
};

/** The files that start processes (relative to test/). */
const PROCESSES = [
	'ai/clusterCap.test.ts',
	'ai/messageCap.test.ts',
	'credentials/credentialTest.test.ts',
	'emulator/cli.test.ts',
	'fuzz/secretsInMessages.test.ts',
	'helpers/tsNodeImports.test.ts',
	'limiter/cluster.test.ts',
	'limiter/deadProcess.test.ts',
	'limiter/distance.test.ts',
	'limiter/reading.test.ts',
	'limiter/sharedLimit.test.ts',
	'policies/doNotSend.test.ts',
	'policies/idempotencyKey.test.ts',
	'policies/idempotencyKeyCluster.test.ts',
	'policies/idempotencyKeyScope.test.ts',
	'policies/redisRestartSend.test.ts',
	'redis/clusterTls.test.ts',
	'redis/tls.test.ts',
	'sms/clusterLedger.test.ts',
	'sms/executionRetry.test.ts',
	'sms/ledgerUpgrade.test.ts',
	'sms/redisRestartedEmpty.test.ts',
	'trigger/blacklisted.test.ts',
	'trigger/clusterClaims.test.ts',
	'trigger/duplicates.test.ts',
];
const escape = (path) => path.replace(/[.]/g, '\\.');

module.exports = {
	reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
	testTimeout: 30000,
	maxWorkers: 3,
	projects: [
		{ ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.test.ts'] },
		{
			...shared,
			displayName: 'integration',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			testPathIgnorePatterns: [
				'/node_modules/',
				'<rootDir>/test/unit/',
				'<rootDir>/test/e2e/',
				'<rootDir>/test/queue/',
				'<rootDir>/test/editor/',
				'<rootDir>/test/adversarial/',
				'<rootDir>/test/packages/',
				// The Cloud edition's tests run in jest.cloud.config.js (npm run test:cloud), over its seams.
				'<rootDir>/test/cloud/',
				...PROCESSES.map((file) => `<rootDir>/test/${escape(file)}$`),
			],
		},
		{ ...shared, displayName: 'processes', roots: ['<rootDir>/test'], testMatch: PROCESSES.map((file) => `<rootDir>/test/${file}`) },
	],
};
