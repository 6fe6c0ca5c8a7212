import { SEED_KEYS, startEmulator, type RunningEmulator } from './index';
import { Client, expectError, type Res } from './testkit';

let emu: RunningEmulator;
let api: Client;

beforeAll(async () => {
	emu = await startEmulator({ timeScale: 0.001 });
	api = new Client(emu.url);
});
afterAll(() => emu.close());
beforeEach(() => emu.control.reset());

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
