/**
 * Jest global setup of the editor suite: ONE emulator and ONE n8n (with the package, the owner and
 * the emulator's credentials) for every test file that opens the editor as `npm run dev` sets it
 * up; each file opens its own browser on it (editorSession.ts). n8n and its package install take
 * 30-60 s per start, which five files paid each. A file that needs another n8n (community
 * packages: n8n without the package, E2E_TESTS on) still starts its own.
 */
import { selectedTarget, startStack, type Stack } from '../e2e/harness';
import { EDITOR_STACK_ENV, EDITOR_TIME_SCALE } from './sharedStack';

declare global {
	// eslint-disable-next-line no-var
	var __SVC_EDITOR_STACK__: Stack | undefined;
}

export default async function globalSetup(): Promise<void> {
	const started = Date.now();
	const stack = await startStack({ target: selectedTarget(), timeScale: EDITOR_TIME_SCALE });
	globalThis.__SVC_EDITOR_STACK__ = stack;
	process.env[EDITOR_STACK_ENV.n8nUrl] = stack.n8n.url;
	process.env[EDITOR_STACK_ENV.apiKey] = stack.n8n.apiKey;
	process.env[EDITOR_STACK_ENV.cookie] = stack.n8n.cookie;
	process.env[EDITOR_STACK_ENV.emulatorUrl] = stack.emulator.url;
	process.stdout.write(`\n[editor] one n8n for the editor files at ${stack.n8n.url}, emulator at ${stack.emulator.url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
