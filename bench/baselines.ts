/**
 * The fastest answer the emulator gives to one call of a given size, measured with undici outside
 * n8n (part of every row's theoretical minimum). What a user builds without the package is in
 * userBuilds.ts and runs through n8n-core like the package's node.
 */
import { Agent, request } from 'undici';

import { MESSAGE, phone, SEND_PATH } from './lib';

// One keep-alive connection pool.
const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 256 });

/** The fastest one call of `recipients` recipients can be answered (for the theoretical minimum). */
export async function callTime(url: string, apiKey: string, recipients: number, offset: number): Promise<number> {
	const body =
		recipients === 1
			? { phoneNumber: phone(offset), message: MESSAGE }
			: { message: MESSAGE, recipients: Array.from({ length: recipients }, (_, i) => ({ phoneNumber: phone(offset + i) })) };
	let best = Infinity;
	for (let attempt = 0; attempt < 3; attempt++) {
		const started = performance.now();
		const response = await request(`${url}${SEND_PATH}`, {
			method: 'POST',
			dispatcher,
			headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
			body: JSON.stringify(body),
		});
		await response.body.text();
		if (response.statusCode >= 300) throw new Error(`calibration call answered ${response.statusCode}`);
		best = Math.min(best, performance.now() - started);
	}
	return best;
}

export async function closeBaselines() {
	await dispatcher.close();
}
