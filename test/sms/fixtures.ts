import { SEED_KEYS, SEED_LOGINS, type RunningEmulator } from '../emulator';
import type { TestCredentials } from '../helpers/n8n';

export { SEED_KEYS, SEED_LOGINS };

export { emulator } from '../helpers/emulator';
export { waitFor } from '../helpers/waitFor';

export function apiKeyCredentials(url: string, apiKey: string = SEED_KEYS.business, plan = 'business'): TestCredentials {
	return { svcMessagingApi: { baseUrl: url, apiKey, plan } };
}

export function accountCredentials(url: string, login: { email: string; password: string } = SEED_LOGINS.demo): TestCredentials {
	return { svcMessagingAccountApi: { baseUrl: url, email: login.email, password: login.password, accessToken: '' } };
}

export const noSender = { __rl: true, mode: 'list', value: '' };

export function sendParameters(extra: Record<string, unknown> = {}) {
	return {
		resource: 'sms',
		operation: 'send',
		phoneNumber: '={{ $json.phone }}',
		message: 'Your code is 123456',
		senderId: noSender,
		options: {},
		...extra,
	};
}

/** Requests the emulator received on a path (the test's own view of what the node sent). */
export function sent(emu: RunningEmulator, pathPrefix = '/api/sms/send-api') {
	return emu.control.requests().filter((r) => r.method === 'POST' && r.path.startsWith(pathPrefix));
}
