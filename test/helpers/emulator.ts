import { startEmulator, type RunningEmulator } from '../emulator';

/** The emulator on a free port, fast: every scaled duration (lifecycle, webhooks, review) × 0.001. */
export async function emulator(timeScale = 0.001): Promise<RunningEmulator> {
	return await startEmulator({ port: 0, timeScale });
}
