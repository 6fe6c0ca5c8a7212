/** The n8n and emulator globalSetup.ts starts for the editor files, as each test file reaches them. */
import { EmulatorClient, N8nClient } from '../e2e/harness';

export const EDITOR_TIME_SCALE = 0.1;

export const EDITOR_STACK_ENV = {
	n8nUrl: 'SVC_EDITOR_N8N_URL',
	apiKey: 'SVC_EDITOR_N8N_API_KEY',
	cookie: 'SVC_EDITOR_N8N_COOKIE',
	emulatorUrl: 'SVC_EDITOR_EMULATOR_URL',
} as const;

/** What a test file uses of an n8n and its emulator. */
export interface EditorStack {
	n8n: N8nClient;
	emulator: { url: string; client: EmulatorClient };
	stop(): Promise<void>;
}

/** The shared stack, or undefined outside jest.editor.config.js's global setup. Its stop() leaves it running. */
export function sharedStack(): EditorStack | undefined {
	const url = process.env[EDITOR_STACK_ENV.n8nUrl];
	const emulatorUrl = process.env[EDITOR_STACK_ENV.emulatorUrl];
	if (!url || !emulatorUrl) return undefined;
	return {
		n8n: new N8nClient(url, { apiKey: process.env[EDITOR_STACK_ENV.apiKey], cookie: process.env[EDITOR_STACK_ENV.cookie] }),
		emulator: { url: emulatorUrl, client: new EmulatorClient(emulatorUrl) },
		stop: async () => undefined,
	};
}
