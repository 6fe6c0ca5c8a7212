/**
 * What a workflow without this package does, with undici against the same emulator:
 *
 * - perItem: one request per item, sequentially, no limiter, a 429 is that item's failure
 *   (what every other n8n messaging node does);
 * - httpBatching: n8n's HTTP Request node with Options → Batching (items per batch, batch
 *   interval), modelled on HttpRequestV3.node.ts: the item loop sleeps `batchInterval` before every
 *   item whose index is a multiple of `batchSize` (index > 0), starts each item's request without
 *   waiting for it, and awaits all requests after the loop; nothing is retried, a 429 fails the item.
 */
import { Agent, request } from 'undici';

import { MESSAGE, phone, SEND_PATH } from './lib';

export interface BaselineRun {
	wallMs: number;
	cpuMs: number;
	accepted: number;
	rejected: number;
	statuses: Record<string, number>;
}

// One keep-alive connection pool, as a node's HTTP helper has.
const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 256 });

async function sendOne(url: string, apiKey: string, i: number): Promise<number> {
	const response = await request(`${url}${SEND_PATH}`, {
		method: 'POST',
		dispatcher,
		headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
		body: JSON.stringify({ phoneNumber: phone(i), message: MESSAGE }),
	});
	await response.body.text();
	return response.statusCode;
}

function tally(statuses: number[], wallMs: number, cpu: NodeJS.CpuUsage): BaselineRun {
	const counts: Record<string, number> = {};
	for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
	const accepted = statuses.filter((s) => s >= 200 && s < 300).length;
	return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, accepted, rejected: statuses.length - accepted, statuses: counts };
}

export async function perItem(url: string, apiKey: string, items: number, offset: number): Promise<BaselineRun> {
	const statuses: number[] = [];
	const cpu = process.cpuUsage();
	const started = performance.now();
	for (let i = 0; i < items; i++) {
		statuses.push(await sendOne(url, apiKey, offset + i).catch(() => 0));
	}
	return tally(statuses, performance.now() - started, process.cpuUsage(cpu));
}

export async function httpBatching(
	url: string,
	apiKey: string,
	items: number,
	offset: number,
	batchSize: number,
	batchIntervalMs: number,
): Promise<BaselineRun> {
	const requests: Array<Promise<number>> = [];
	const cpu = process.cpuUsage();
	const started = performance.now();
	for (let itemIndex = 0; itemIndex < items; itemIndex++) {
		if (itemIndex > 0 && batchSize >= 0 && batchIntervalMs > 0) {
			if (itemIndex % batchSize === 0) await new Promise((resolve) => setTimeout(resolve, batchIntervalMs));
		}
		const pending = sendOne(url, apiKey, offset + itemIndex);
		pending.catch(() => {});
		requests.push(pending);
	}
	const settled = await Promise.allSettled(requests);
	const statuses = settled.map((s) => (s.status === 'fulfilled' ? s.value : 0));
	return tally(statuses, performance.now() - started, process.cpuUsage(cpu));
}

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
