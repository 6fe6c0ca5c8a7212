/**
 * npm test's runner (jest.config.js): two lanes at once in one jest run. The files of the
 * `processes` project (they start Redis servers, Redis Clusters, ts-node children) run one after the
 * other in a worker of their own; the other files run beside them in jest's other workers
 * (maxWorkers less one). Jest's `maxWorkers` is one figure for every project, and it runs one
 * runner's files after another's: neither keeps the process-starting files apart from each other
 * while the rest runs. On 2 cores those files met at once (load 42) and timing-bound tests failed;
 * one at a time, they meet only the files that start nothing.
 *
 * `--runInBand` (or one worker) still runs every file in jest's own process, one after another.
 */
const TestRunner = require('jest-runner').default;

const SERIAL_PROJECT = 'processes';
const EVENTS = ['test-file-start', 'test-file-success', 'test-file-failure', 'test-case-start', 'test-case-result'];

class LaneRunner {
	constructor(globalConfig, context) {
		this.globalConfig = globalConfig;
		this.context = context;
		this.supportsEventEmitters = true;
		this.listeners = new Set();
	}

	on(eventName, listener) {
		const entry = { eventName, listener };
		this.listeners.add(entry);
		return () => this.listeners.delete(entry);
	}

	/** A jest TestRunner with `maxWorkers` workers, whose events reach the listeners jest gave this runner. */
	lane(maxWorkers) {
		const runner = new TestRunner({ ...this.globalConfig, maxWorkers }, this.context);
		for (const eventName of EVENTS) {
			runner.on(eventName, (payload) =>
				Promise.all([...this.listeners].filter((e) => e.eventName === eventName).map((e) => e.listener(payload))),
			);
		}
		return runner;
	}

	async runTests(tests, watcher, options) {
		const serial = tests.filter((test) => test.context.config.displayName?.name === SERIAL_PROJECT);
		const others = tests.filter((test) => !serial.includes(test));
		const workers = this.globalConfig.maxWorkers;
		if (options.serial || workers < 2 || serial.length === 0 || others.length === 0) {
			return await this.lane(workers).runTests(tests, watcher, options);
		}
		await Promise.all([
			this.lane(1).runTests(serial, watcher, { serial: false }),
			this.lane(workers - 1).runTests(others, watcher, { serial: false }),
		]);
	}
}

module.exports = LaneRunner;
