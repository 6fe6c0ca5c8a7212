/**
 * The one polling helper of the tests: the emulator's lifecycle, webhooks and n8n's executions all
 * run on real (scaled) timers, so a test asks again until the answer is there.
 */

/** Thrown by a probe to stop waiting at once (the awaited process died: waiting longer cannot help). */
export class FatalWaitError extends Error {}

export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Calls `probe` until it returns a truthy value and returns that value. A probe that throws is asked
 * again (its last error is quoted on timeout) unless it throws FatalWaitError. After `timeoutMs`
 * it throws, naming `what` was awaited.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000, intervalMs = 50): Promise<Truthy<T>> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value) return value as Truthy<T>;
		} catch (error) {
			if (error instanceof FatalWaitError) throw error;
			lastError = error;
		}
		if (Date.now() > deadline) {
			const cause = lastError ? `: ${String((lastError as Error).message ?? lastError)}` : '';
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
