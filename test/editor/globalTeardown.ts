/** Stops what ./globalSetup.ts started. */
export default async function globalTeardown(): Promise<void> {
	const stack = globalThis.__SVC_EDITOR_STACK__;
	globalThis.__SVC_EDITOR_STACK__ = undefined;
	if (stack) await stack.stop();
}
