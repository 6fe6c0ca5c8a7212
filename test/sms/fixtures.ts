import { SEED_KEYS, SEED_LOGINS, type RunningEmulator } from '../emulator';

export { SEED_KEYS, SEED_LOGINS };

export { waitFor } from '../helpers/waitFor';
export { accountCredentials, apiKeyCredentials } from '../helpers/credentials';

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

/** Send Bulk with one recipient per input item, placeholders filled from the item's fields. */
export function sendBulkParameters(extra: Record<string, unknown> = {}) {
	return {
		resource: 'sms',
		operation: 'sendBulk',
		recipientsSource: 'items',
		phoneNumber: '={{ $json.phone }}',
		variablesSource: 'allFields',
		message: 'Hi {{name}}',
		senderId: noSender,
		options: {},
		...extra,
	};
}

/** Requests the emulator received on a path (the test's own view of what the node sent). */
export function sent(emu: RunningEmulator, pathPrefix = '/api/sms/send-api') {
	return emu.control.requests().filter((r) => r.method === 'POST' && r.path.startsWith(pathPrefix));
}

/** How many SMS the emulator holds for each number: the count behind "never twice, nothing lost". */
export function smsPerNumber(emu: RunningEmulator): Map<string, number> {
	const counts = new Map<string, number>();
	for (const m of emu.control.messages()) counts.set(String(m.phoneNumber), (counts.get(String(m.phoneNumber)) ?? 0) + 1);
	return counts;
}

/** Numbers that got more than one SMS. */
export function numbersWithTwo(emu: RunningEmulator): number {
	return [...smsPerNumber(emu).values()].filter((n) => n > 1).length;
}
