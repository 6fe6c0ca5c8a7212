/** Polls `read` until `done` (the emulator's lifecycle runs on scaled real timers); the last value on timeout. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const value = await read();
		if (done(value) || Date.now() > until) return value;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}
