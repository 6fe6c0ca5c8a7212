/**
 * Shared pieces of the benchmark: the emulator child process and its control surface, the plans,
 * generated input, and the figures computed from the emulator's request log.
 */
import { join } from 'path';
import { request } from 'undici';
import { startEmulatorProcess as startEmulator, type EmulatorProcess } from '../test/helpers/emulatorProcess';

export const ROOT = join(__dirname, '..');

export type Plan = 'free' | 'starter' | 'business';

/** The spec's Limits table (the same figures as nodes/SvcMessaging/transport/service.ts). */
export const PLANS: Record<Plan, { rate: number; perCall: number }> = {
	free: { rate: 5, perCall: 100 },
	starter: { rate: 20, perCall: 1000 },
	business: { rate: 100, perCall: 10000 },
};

export const SEND_PATH = '/api/sms/send-api';
export const MESSAGE = 'Hello from the benchmark: your order has shipped';
export const TEMPLATE = 'Hello {{name}}, your order {{order}} has shipped';

/** Valid Kenyan mobile numbers, distinct per index (none end in the emulator's failing 997–999). */
export function phone(i: number): string {
	return `+2547${String(10_000_000 + (i % 80_000_000)).padStart(8, '0')}`;
}

/**
 * Items as n8n hands them on (parsed from JSON: a spreadsheet's rows, an HTTP answer, an execution
 * queue mode read back): their strings flat. Built with `+` here, V8 would keep each as a tree of its
 * parts, and the node's first read of one would make its flat copy inside the measured send (0.7 MB
 * for Send Bulk's 100,000 rows, measured), which a user's items never cost.
 */
export function inputItems(count: number, offset = 0): Array<{ json: { phone: string; name: string; order: string } }> {
	const built = Array.from({ length: count }, (_, i) => ({
		json: { phone: phone(offset + i), name: `Customer ${offset + i}`, order: `A-${100000 + offset + i}` },
	}));
	return JSON.parse(JSON.stringify(built)) as typeof built;
}

export type Emulator = EmulatorProcess;

/** `npm run emulator` as a child process (its CPU stays out of the node's figures). */
export async function startEmulatorProcess(): Promise<Emulator> {
	// Lifecycle durations × 1000: delivery reports would come after the benchmark, so the emulator
	// spends its CPU on the requests being measured only. Rate limits are not scaled, and counted in
	// a sliding window: at most the plan's N requests in any 1,000 ms (the strictest reading).
	return await startEmulator({ timeScale: 1000, rateLimit: 'sliding-window' });
}

export async function call(url: string, method: string, path: string, body?: unknown, apiKey?: string) {
	const response = await request(`${url}${path}`, {
		method: method as 'GET',
		headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.body.text();
	return { status: response.statusCode, body: text ? (JSON.parse(text) as { data?: unknown }) : undefined };
}

/** A fresh account with a large balance and one key per scenario (each key has its own rate budget). */
let seeded = 0;
export async function seedAccount(url: string, keys: Array<{ key: string; plan: Plan }>) {
	const { status, body } = await call(url, 'POST', '/__emulator/accounts', {
		// One email per account: rows seed theirs at the same millisecond (Promise.all).
		email: `bench-${Date.now()}-${++seeded}@svc.test`,
		password: 'bench-password',
		credits: 10_000_000,
		apiKeys: keys.map((k) => ({ key: k.key, tier: k.plan, label: 'bench' })),
	});
	if (status !== 201) throw new Error(`seeding the bench account failed: ${status} ${JSON.stringify(body)}`);
	return (body!.data as { id: string }).id;
}

export interface LoggedRequest {
	method: string;
	path: string;
	status: number | null;
	time: string;
	durationMs: number;
	keyLast4: string | null;
}

export async function requestLog(url: string, key: string): Promise<LoggedRequest[]> {
	const { body } = await call(url, 'GET', '/__emulator/requests');
	return (body!.data as LoggedRequest[]).filter((r) => r.keyLast4 === key.slice(-4) && r.method === 'POST' && r.path === SEND_PATH);
}

export async function clearRequestLog(url: string) {
	await call(url, 'DELETE', '/__emulator/requests');
}

export interface MessageRecord {
	reference: string | null;
	createdAt: string;
	batchId: string | null;
}

export async function messages(url: string, accountId: string): Promise<MessageRecord[]> {
	const { body } = await call(url, 'GET', `/__emulator/messages?accountId=${encodeURIComponent(accountId)}`);
	return body!.data as MessageRecord[];
}

/** The most of `times` (sorted, ms) in any 1,000 ms: what a sliding window counts. */
export function mostInAnySecond(times: number[]): number {
	let most = 0;
	for (let first = 0, i = 0; i < times.length; i++) {
		while (times[i] - times[first] >= 1000) first++;
		most = Math.max(most, i - first + 1);
	}
	return most;
}

/** Calls, 429s and the achieved rate of accepted calls, from the emulator's arrival times. */
export function logFigures(log: LoggedRequest[], rate: number) {
	const ok = log.filter((r) => r.status !== null && r.status < 400);
	const times = ok.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
	const spanMs = times.length > 1 ? times[times.length - 1] - times[0] : 0;
	// n calls at rate r take (n − 1)/r seconds from the first to the last arrival.
	const achievedRate = times.length > 1 && spanMs > 0 ? ((times.length - 1) * 1000) / spanMs : null;
	// Share of that span the emulator spent answering these calls (one at a time, in one thread):
	// near 1, calls arrive at the emulator's pace, not at the plan's.
	const byArrival = [...ok].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
	const busyMs = byArrival.slice(0, -1).reduce((sum, r) => sum + r.durationMs, 0);
	return {
		serviceBusy: spanMs > 0 ? busyMs / spanMs : null,
		calls: log.length,
		okCalls: ok.length,
		rateLimited: log.filter((r) => r.status === 429).length,
		otherErrors: log.filter((r) => r.status === null || (r.status >= 400 && r.status !== 429)).length,
		achievedRate,
		rateRatio: achievedRate === null ? null : achievedRate / rate,
		/** accepted requests in the busiest 1,000 ms, and in the first 1,000 ms from the first arrival */
		mostInAnySecond: mostInAnySecond(times),
		inFirstSecond: times.filter((t) => t < times[0] + 1000).length,
		firstArrival: times[0] ?? null,
		lastArrival: times[times.length - 1] ?? null,
	};
}

/** The middle value (the upper of the two middles for an even count), null for none. */
export const median = (list: number[]) => (list.length ? [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] : null);

export const round = (value: number | null | undefined, digits = 2) =>
	value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits));
