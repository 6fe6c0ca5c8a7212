/** Stops what ./globalSetup.ts started (n8n, then the emulator). */
export default async function globalTeardown(): Promise<void> {
	const stack = globalThis.__SVC_E2E_STACK__;
	globalThis.__SVC_E2E_STACK__ = undefined;
	if (stack) await stack.stop();
}
