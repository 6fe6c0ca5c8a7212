import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { takeInSecond, takeSlot, takeToken } from './rateLimit';
import type { ApiKeyRecord, Bucket } from './state';
import { Client, expectError, type Res } from './testkit';

const emu = useEmulator();
const api = new Client(emu);

/** Sends `n` requests back to back; retries the whole burst (fresh buckets) if the machine was too slow for it to count as one burst. */
async function burst(n: number, send: () => Promise<Res>, withinMs: number): Promise<Res[]> {
	for (let tries = 0; tries < 5; tries++) {
		emu.control.reset();
		const started = Date.now();
		const results: Res[] = [];
		for (let i = 0; i < n; i++) results.push(await send());
		if (Date.now() - started < withinMs) return results;
	}
	throw new Error('the machine is too slow to send a burst');
}

const sms = (key: string) => () => api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key });

describe('rate limit per API key', () => {
	it('lets 5 quick requests of a Free key through and answers the 6th with 429 (not processed)', async () => {
		// Within 150 ms a 5/s bucket refills less than one token.
		const results = await burst(6, sms(SEED_KEYS.free), 150);
		expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 429]);
		const limited = results[5];
		expectError(limited, 429, 'RATE_LIMIT_EXCEEDED', /5 requests per second/);
		expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		expect(limited.headers['x-ratelimit-limit']).toBe('5');
		expect(limited.headers['x-ratelimit-remaining']).toBe('0');
		expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
		expect(emu.control.messages()).toHaveLength(5);
		expect(emu.state.accounts.get('acc_demo')!.credits).toBe(995);
	});

	it('counts every request of the key, errors included, and keeps keys apart', async () => {
		const results = await burst(6, () => api.post('/api/sms/send-api', { phoneNumber: 'bad', message: 'x' }, { key: SEED_KEYS.liveFree }), 150);
		expect(results.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 429]);
		expect((await sms(SEED_KEYS.free)()).status).toBe(202);
	});

	it('refills at the plan rate', async () => {
		const results = await burst(6, sms(SEED_KEYS.free), 150);
		expect(results[5].status).toBe(429);
		await emu.control.advance(1000);
		expect((await sms(SEED_KEYS.free)()).status).toBe(202);
	});

	it.each([
		[SEED_KEYS.free, '5'],
		[SEED_KEYS.starter, '20'],
		[SEED_KEYS.business, '100'],
		[SEED_KEYS.enterprise, '200'],
	])('announces the limit of %s in X-RateLimit-* headers', async (key, limit) => {
		const res = await api.get('/api/sms/sender-ids', { key });
		expect(res.status).toBe(200);
		expect(res.headers['x-ratelimit-limit']).toBe(limit);
		expect(Number(res.headers['x-ratelimit-remaining'])).toBe(Number(limit) - 1);
	});

	it('lets a 20/s Starter key make more than 5 quick requests', async () => {
		const results = await burst(10, sms(SEED_KEYS.starter), 400);
		expect(results.every((r) => r.status === 202)).toBe(true);
	});

	it('does not limit Bearer endpoints', async () => {
		const token = await api.login();
		for (let i = 0; i < 12; i++) expect((await api.get('/api/account/balance', { token })).status).toBe(200);
	});
});

describe('fixed-second mode (at most N requests in each calendar second)', () => {
	const free = { key: 'k', requestsPerSecond: 5 } as ApiKeyRecord;

	it('counts per calendar second: the 6th in a second is refused until the next one begins, and 2N pass across a boundary', () => {
		const seconds = new Map<string, { second: number; count: number }>();
		const at = (t: number) => takeInSecond(seconds, free, t);
		expect([10_000, 10_100, 10_200, 10_300, 10_400].map((t) => at(t).allowed)).toEqual([true, true, true, true, true]);
		const refused = at(10_999);
		expect(refused.allowed).toBe(false);
		expect(refused.headers['Retry-After']).toBe('1');
		expect(refused.headers['X-RateLimit-Reset']).toBe('11');
		// A new second, a new count: what a sliding window would refuse (5 more within 1,000 ms of the first 5).
		expect([11_000, 11_000, 11_001, 11_002, 11_003].map((t) => at(t).allowed)).toEqual([true, true, true, true, true]);
		expect(at(11_004).allowed).toBe(false);
		expect(at(11_004).headers['X-RateLimit-Remaining']).toBe('0');
	});

	it('may begin its seconds past the whole second (a service on its own clock): 480 ms off, the edge is at x.480', () => {
		const seconds = new Map<string, { second: number; count: number }>();
		const at = (t: number) => takeInSecond(seconds, free, t, 480);
		expect([10_480, 10_600, 10_800, 11_000, 11_200].map((t) => at(t).allowed)).toEqual([true, true, true, true, true]);
		// 11,479 is still in the second that began at 10,480; 11,480 begins the next.
		expect(at(11_479).allowed).toBe(false);
		expect(at(11_479).headers['X-RateLimit-Reset']).toBe('12');
		expect([11_480, 11_481, 11_482, 11_483, 11_484].map((t) => at(t).allowed)).toEqual([true, true, true, true, true]);
		expect(at(11_485).allowed).toBe(false);
	});

	it('is a mode of the emulator like the others: PUT /__emulator/rate-limit takes it, with its offset', () => {
		expect(emu.control.setRateLimitMode('fixed-second')).toEqual({ mode: 'fixed-second', secondOffsetMs: 0 });
		expect(emu.control.setRateLimitMode('fixed-second', 850)).toEqual({ mode: 'fixed-second', secondOffsetMs: 850 });
		expect(() => emu.control.setRateLimitMode('fixed-second', 1000)).toThrow(/0 to 999/);
		expect(emu.control.rateLimitMode()).toBe('fixed-second');
		emu.control.setRateLimitMode('token-bucket', 0);
	});
});

describe('sliding-window mode (at most N requests in any 1,000 ms)', () => {
	const free = { key: 'k', requestsPerSecond: 5 } as ApiKeyRecord;

	it('counts the last 1,000 ms: a slot frees exactly when the oldest request leaves the window', () => {
		const windows = new Map<string, number[]>();
		const at = (t: number) => takeSlot(windows, free, t);
		expect([0, 200, 400, 600, 800].map((t) => at(t).allowed)).toEqual([true, true, true, true, true]);
		const refused = at(999);
		expect(refused.allowed).toBe(false);
		expect(refused.headers['Retry-After']).toBe('1');
		expect(refused.headers['X-RateLimit-Remaining']).toBe('0');
		// The request at 0 is outside (1000 − 1000, 1000]; the one at 200 is not, until 1200.
		expect(at(1000).allowed).toBe(true);
		expect(at(1001).allowed).toBe(false);
		expect(at(1199).allowed).toBe(false);
		expect(at(1200).allowed).toBe(true);
		expect(at(1200).headers['X-RateLimit-Remaining']).toBe('0');
	});

	it('refuses the bunching a token bucket lets through: 5 at once, then 5 more just under a second later', () => {
		const windows = new Map<string, number[]>();
		const buckets = new Map<string, Bucket>();
		const pattern = [0, 0, 0, 0, 0, 990, 990, 990, 990, 990];
		const bucket = pattern.map((t) => takeToken(buckets, free, t).allowed);
		const window = pattern.map((t) => takeSlot(windows, free, t).allowed);
		expect(bucket.filter(Boolean).length).toBe(9);
		expect(window.filter(Boolean).length).toBe(5);
	});

	describe('over HTTP', () => {
		const strict = useEmulator({ rateLimit: 'sliding-window' });
		const client = new Client(strict);

		it('answers the 6th quick request of a Free key with 429; after the emulator clock moves 600 ms still 429 (a bucket would have refilled 3), after 1,000 ms the key has 5 again', async () => {
			const send = () => client.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key: SEED_KEYS.free });
			let statuses: number[] = [];
			for (let tries = 0; tries < 5; tries++) {
				strict.control.reset();
				const started = Date.now();
				statuses = [];
				for (let i = 0; i < 6; i++) statuses.push((await send()).status);
				await strict.control.advance(600);
				statuses.push((await send()).status);
				// Under 300 ms of real time (+ 600 advanced): every request is still inside the window.
				if (Date.now() - started < 300) break;
			}
			expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429]);
			await strict.control.advance(1000);
			const again = [];
			for (let i = 0; i < 6; i++) again.push((await send()).status);
			expect(again.slice(0, 5)).toEqual([202, 202, 202, 202, 202]);
			expect(strict.control.messages()).toHaveLength(10);
		});

		it('is an emulator setting: GET/PUT /__emulator/rate-limit, kept by reset, anything else is a 400', async () => {
			expect((await client.get('/__emulator/rate-limit')).body.data).toEqual({ mode: 'sliding-window' });
			expect((await client.call('PUT', '/__emulator/rate-limit', { body: { mode: 'token-bucket' } })).body.data).toEqual({ mode: 'token-bucket', secondOffsetMs: 0 });
			strict.control.reset();
			expect(strict.control.rateLimitMode()).toBe('token-bucket');
			expect((await client.call('PUT', '/__emulator/rate-limit', { body: { mode: 'fixed' } })).status).toBe(400);
			expect((await client.call('PUT', '/__emulator/rate-limit', { body: { mode: 'sliding-window' } })).status).toBe(200);
			expect(strict.control.rateLimitMode()).toBe('sliding-window');
		});
	});

	it('the default is the token bucket (docs/assumptions.md)', () => {
		expect(emu.control.rateLimitMode()).toBe('token-bucket');
	});
});
