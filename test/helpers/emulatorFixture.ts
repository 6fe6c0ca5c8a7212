/**
 * The emulator as every integration test file uses it: `const emu = useEmulator()` at the top of a file
 * (or of a describe block) starts one emulator on a free port before the block's tests, puts it back to
 * its seed before each test, and closes it after the block. The returned object reads the running
 * emulator, so `emu.url`, `emu.control` and `emu.state` are valid inside hooks and tests.
 */
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../emulator';
import { live, runningOnly } from './live';

export interface EmulatorFixtureOptions extends EmulatorOptions {
	/**
	 * 'file' (default): one emulator for the block, reset before each test.
	 * 'test': a new emulator for each test (a test that counts what one fresh emulator received across restarts of n8n).
	 */
	per?: 'file' | 'test';
	/** default true; false when the block's tests build on one another's state (set up once in beforeAll) */
	resetEachTest?: boolean;
}

/** Fast by default: every scaled duration (lifecycle, webhooks, review) × 0.001. */
const DEFAULT_TIME_SCALE = 0.001;

export function useEmulator(options: EmulatorFixtureOptions = {}): RunningEmulator {
	const { per = 'file', resetEachTest = true, ...emulatorOptions } = options;
	let running: RunningEmulator | undefined;
	const start = async () => {
		running = await startEmulator({ timeScale: DEFAULT_TIME_SCALE, ...emulatorOptions });
	};
	const stop = async () => {
		await running?.close();
		running = undefined;
	};
	if (per === 'test') {
		beforeEach(start);
		afterEach(stop);
	} else {
		beforeAll(start);
		afterAll(stop);
	}
	const current = runningOnly('useEmulator()', () => running);
	if (resetEachTest && per === 'file') beforeEach(() => current().control.reset(emulatorOptions.seed));
	return live(current);
}
