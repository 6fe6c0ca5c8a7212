/**
 * `npm run test:cloud`: the Cloud edition's platform pieces (issue 58), tested against the
 * self-hosted ones. The `cloud` project maps the two platform seams that nodes/ imports
 * (`../platform/bottleneck`, `../platform/phoneNumbers`, relative to nodes/SvcMessaging/*) to
 * cloud/platform/, as the Cloud build's overlay does, and runs on them:
 * - test/cloud/: the engines' own tests and the differential test of the phone numbers;
 * - the limiter tests that run in one process (test/limiter/*; distance.test.ts and reading.test.ts
 *   hold Redis tests beside their one-process ones: CLOUD_MIXED_FILES=1 adds them, and
 *   `npm run test:cloud` runs them with `-t` on ONE_PROCESS_TESTS below);
 * - the phone rule tests (test/unit/rules.test.ts, test/limiter/fastPaths.test.ts).
 * Tests import the seams by their full path (../../nodes/SvcMessaging/platform/…), which is not
 * mapped: a test can hold both implementations side by side.
 */
const cloud = {
	displayName: 'cloud',
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	setupFiles: ['<rootDir>/test/helpers/jest.setup.ts'],
	globalSetup: '<rootDir>/test/cloud/generateNumberingData.js',
	moduleNameMapper: {
		'^\\.\\./platform/bottleneck$': '<rootDir>/cloud/platform/bottleneck.ts',
		'^\\.\\./platform/phoneNumbers$': '<rootDir>/cloud/platform/phoneNumbers.ts',
	},
	roots: ['<rootDir>/test'],
	testMatch: [
		'<rootDir>/test/cloud/**/*.test.ts',
		'<rootDir>/test/limiter/limiter.test.ts',
		'<rootDir>/test/limiter/freeRate.test.ts',
		'<rootDir>/test/limiter/fastPaths.test.ts',
		'<rootDir>/test/unit/rules.test.ts',
		// Files that mix one-process tests with Redis ones (or, idle.test.ts, a heap threshold set by
		// Bottleneck's size): `npm run test:cloud` runs only their one-process tests, by name (-t).
		...(process.env.CLOUD_MIXED_FILES ? ['idle', 'distance', 'reading'].map((name) => `<rootDir>/test/limiter/${name}.test.ts`) : []),
	],
};

/** The one-process tests of the mixed files (npm run test:cloud passes it to -t). */
const ONE_PROCESS_TESTS = [
	'not let go while a request holds its slot',
	'let go passes later calls',
	'one process, 300 sends',
	'the bound bites',
	'draws one or two 429s',
	'the reading the credential fixes',
	'Learn against services',
];

module.exports = { testTimeout: 30000, maxWorkers: 2, projects: [cloud] };
// Not a jest option: kept off the keys jest validates.
Object.defineProperty(module.exports, 'ONE_PROCESS_TESTS', { value: ONE_PROCESS_TESTS });
