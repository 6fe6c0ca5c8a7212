/**
 * What a fixture hands out for a resource it starts in a hook (an emulator, a Redis, a receiver): each
 * property read goes to the one running at that moment, so a test file can hold it in a `const` at
 * its top. Outside the hooks and tests of its block there is none, and `current` says so.
 */
export function live<T extends object>(current: () => T): T {
	return new Proxy({} as T, {
		get(_target, key) {
			const target = current();
			const value: unknown = Reflect.get(target, key, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}

/** The `current` of a resource started in beforeAll/beforeEach: the running one, or an error naming the fixture. */
export function runningOnly<T>(fixture: string, read: () => T | undefined): () => T {
	return () => {
		const value = read();
		if (value === undefined) throw new Error(`${fixture} runs only inside hooks and tests of the block that called it`);
		return value;
	};
}
