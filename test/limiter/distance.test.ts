/**
 * The plan's rate at a distance, still strict: the emulator 125 ± 25 ms away each way (a 250 ms
 * round trip, ± 50 ms, uniform each way) and counting the limit in a sliding window at the moment
 * a request ARRIVES. A slot's hold after the answer shrinks by the floor the round trips approach
 * (transport/roundTrips.ts); these tests count at the emulator that the shrink never lets N + 1
 * requests arrive within 1,000 ms — in one process and in two sharing the limit through Redis —
 * and that a shrink only 30 ms more generous than the round trips allow does (the bound bites).
 * Rates are `npm run bench`'s (rate-distance rows); here only 429s and arrivals are counted.
 */
import { request } from 'undici';

import { SEED_KEYS } from '../emulator';
import { useEmulator } from '../helpers/emulatorFixture';
import { mostInAnySecond } from '../helpers/limiterProcesses';
import { startRedis, type RedisServer } from '../helpers/services';
import { createLimiter, type KeyLimiter } from '../../nodes/SvcMessaging/transport/keyLimiter';
import * as mainLimiter from '../../nodes/SvcMessaging/transport/limiter';
import { floorEstimate, type ShrinkRule } from '../../nodes/SvcMessaging/transport/roundTrips';

type LimiterModule = typeof mainLimiter;

const STARTER = { requestsPerSecond: 20, recipientsPerCall: 1000 };
const emu = useEmulator({ timeScale: 1000, rateLimit: 'sliding-window' });
const others: LimiterModule[] = [];
let redis: RedisServer | undefined;

beforeEach(() => void emu.control.setLatency({ inbound: '125±25', outbound: '125±25' }));
afterEach(async () => {
	emu.control.setLatency({});
	for (const other of others.splice(0)) await other.closeSharedLimiters();
});
afterAll(async () => await redis?.stop());

/** `n` single sends through `limiter` at once; a 429 is counted, not retried. */
async function sendAll(limiter: KeyLimiter, from: number, n: number): Promise<number[]> {
	return await Promise.all(
		Array.from({ length: n }, async (_, i) =>
			await limiter.schedule(async () => {
				const res = await request(`${emu.url}/api/sms/send-api`, {
					method: 'POST',
					headers: { 'x-api-key': SEED_KEYS.starter, 'content-type': 'application/json' },
					body: JSON.stringify({ phoneNumber: `+2547${String(from + i).padStart(8, '0')}`, message: 'At a distance' }),
				});
				await res.body.text();
				return res.statusCode;
			}),
		),
	);
}

/** From the emulator's log: 429s, and the most send requests ARRIVED in any 1,000 ms. */
function atTheService() {
	const sends = emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');
	return { sends: sends.length, rateLimited: sends.filter((r) => r.status === 429).length, mostInAnySecond: mostInAnySecond(sends.map((r) => Date.parse(r.time))) };
}

/** The rule under test, recording the largest shrink it gave (to show the hold did shrink). */
function watched(rule: ShrinkRule) {
	const seen = { largest: 0 };
	const shrink: ShrinkRule = (smallest, n) => {
		const ms = rule(smallest, n);
		seen.largest = Math.max(seen.largest, ms);
		return ms;
	};
	return { shrink, seen };
}

describe('Starter (20/s), 125 ± 25 ms each way, sliding window at arrival', () => {
	it('one process, 300 sends: the hold shrinks by most of the 200 ms floor, and no 429, never 21 arrivals in 1,000 ms', async () => {
		const { shrink, seen } = watched(floorEstimate);
		const statuses = await sendAll(createLimiter(STARTER, { shrink }), 20_000_000, 300);
		expect(statuses).toEqual(Array(300).fill(202));
		expect(atTheService()).toEqual({ sends: 300, rateLimited: 0, mostInAnySecond: 20 });
		expect(seen.largest).toBeGreaterThan(170);
		expect(new Set(emu.control.messages().map((m) => m.phoneNumber)).size).toBe(300);
	}, 60_000);

	it('the bound bites: a shrink 30 ms more generous (the smallest round trip + 30 ms) lets 429s through', async () => {
		const generous: ShrinkRule = (smallest, n) => (n < 20 ? 0 : smallest[0] + 30);
		const statuses = await sendAll(createLimiter(STARTER, { shrink: generous }), 21_000_000, 300);
		const counted = atTheService();
		expect(counted.rateLimited).toBeGreaterThan(0);
		expect(statuses.filter((s) => s === 429)).toHaveLength(counted.rateLimited);
		// What the client let arrive (429s included): more than N within 1,000 ms.
		expect(counted.mostInAnySecond).toBeGreaterThan(20);
	}, 60_000);

	it('two processes sharing the limit through Redis, 150 sends each: no 429, never 21 arrivals in 1,000 ms', async () => {
		redis = await startRedis();
		const config = { host: '127.0.0.1', port: redis.port, user: '', password: '', database: 0, tls: false, keyPrefix: 'svc-distance' };
		const copies = [0, 1].map(() => {
			let copy: LimiterModule | undefined;
			jest.isolateModules(() => {
				copy = require('../../nodes/SvcMessaging/transport/limiter') as LimiterModule;
			});
			others.push(copy!);
			return copy!;
		});
		const statuses = await Promise.all(copies.map(async (copy, p) => await sendAll(await copy.limiterFor(emu.url, SEED_KEYS.starter, STARTER, config), 22_000_000 + p * 1_000, 150)));
		expect(statuses.flat()).toEqual(Array(300).fill(202));
		expect(atTheService()).toEqual({ sends: 300, rateLimited: 0, mostInAnySecond: 20 });
	}, 120_000);
});
