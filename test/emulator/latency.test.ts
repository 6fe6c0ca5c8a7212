/**
 * The latency profile: the way in and the way out, fixed or jittered, and the rate limit counting a
 * request when it ARRIVES (after the way in), as the real service does. Timed against this process's
 * clock (the emulator runs in it): every delay is a lower bound, never an upper one.
 */
import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { drawMs, parseDelayText, parseLatency } from './latency';
import { Client, expectError } from './testkit';

const emu = useEmulator({ rateLimit: 'sliding-window' });
const api = new Client(emu);
const sms = (phone: string) => api.post('/api/sms/send-api', { phoneNumber: phone, message: 'x' }, { key: SEED_KEYS.free });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => void emu.control.setLatency({}));

describe('latency profile', () => {
	it('parses "ms", "ms±jitter", "ms+-jitter", "ms:jitter" and {ms, jitterMs}; refuses what cannot be a delay, naming the way', () => {
		expect(parseDelayText('125', 'inbound')).toEqual({ ms: 125, jitterMs: 0 });
		expect(parseDelayText('125±25', 'inbound')).toEqual({ ms: 125, jitterMs: 25 });
		expect(parseDelayText('125+-25', 'inbound')).toEqual({ ms: 125, jitterMs: 25 });
		expect(parseDelayText('125:25', 'inbound')).toEqual({ ms: 125, jitterMs: 25 });
		expect(parseLatency({ inbound: { ms: 50, jitterMs: 10 }, outbound: '30±5' })).toEqual({ inbound: { ms: 50, jitterMs: 10 }, outbound: { ms: 30, jitterMs: 5 } });
		expect(() => parseDelayText('fast', 'outbound')).toThrow(/outbound must be "ms" or "ms±jitter".*'fast'/);
		expect(() => parseLatency({ inbound: { ms: 10, jitterMs: 20 } })).toThrow(/inbound must have 0 ≤ ms − jitterMs/);
	});

	it('draws uniformly within ms ± jitterMs', () => {
		const draws = Array.from({ length: 2_000 }, () => drawMs({ ms: 125, jitterMs: 25 }));
		expect(Math.min(...draws)).toBeGreaterThanOrEqual(100);
		expect(Math.max(...draws)).toBeLessThanOrEqual(150);
		expect(draws.filter((d) => d < 125).length / draws.length).toBeGreaterThan(0.45);
		expect(draws.filter((d) => d < 105).length).toBeGreaterThan(0);
		expect(draws.filter((d) => d > 145).length).toBeGreaterThan(0);
	});

	it('is set and read through the control API (PUT/GET /__emulator/latency), kept by reset, and refused with 400 when malformed', async () => {
		const set = await api.call('PUT', '/__emulator/latency', { body: { inbound: '40±10', outbound: { ms: 20 } } });
		expect(set.status).toBe(200);
		expect(set.body.data).toEqual({ inbound: { ms: 40, jitterMs: 10 }, outbound: { ms: 20, jitterMs: 0 } });
		emu.control.reset();
		expect((await api.get('/__emulator/latency')).body.data).toEqual(set.body.data);
		expectError(await api.call('PUT', '/__emulator/latency', { body: { inbound: '-5' } }), 400, 'BAD_REQUEST', /inbound/);
	});

	it('holds a request for the way in before the service sees it, and its answer for the way out; control requests are never held', async () => {
		emu.control.setLatency({ inbound: '150', outbound: '100' });
		const sent = Date.now();
		const res = await sms('+254712345678');
		const answered = Date.now();
		expect(res.status).toBe(202);
		expect(answered - sent).toBeGreaterThanOrEqual(249);
		const [logged] = emu.control.requests().filter((r) => r.path === '/api/sms/send-api');
		// The request log (and the rate limit) saw it after the way in and before the way out.
		expect(Date.parse(logged.time) - sent).toBeGreaterThanOrEqual(149);
		expect(answered - Date.parse(logged.time)).toBeGreaterThanOrEqual(99);
		const control = Date.now();
		await api.get('/__emulator/latency');
		expect(Date.now() - control).toBeLessThan(100);
	});

	it('the sliding window counts arrival times: 5 sent at 0 arriving at 300 ms leave no room for a 6th sent at 1,100 ms arriving at once', async () => {
		emu.control.setLatency({ inbound: '300' });
		const first = Date.now();
		const five = await Promise.all(Array.from({ length: 5 }, (_, i) => sms(`+25471234560${i}`)));
		expect(five.map((r) => r.status)).toEqual(Array(5).fill(202));
		emu.control.setLatency({});
		await sleep(first + 1_100 - Date.now());
		// Sent 1,100 ms after the five (a send-time count would let it through), arrived < 1,000 ms after them.
		expectError(await sms('+254712345610'), 429, 'RATE_LIMIT_EXCEEDED', /5 requests per second/);
		await sleep(first + 1_450 - Date.now());
		expect((await sms('+254712345611')).status).toBe(202);
	});
});
