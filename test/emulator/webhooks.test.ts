import { createHmac } from 'crypto';

import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { Client, startReceiver, type Receiver } from './testkit';
import { waitFor } from '../helpers/waitFor';

const key = SEED_KEYS.business;

describe('lifecycle and webhooks (small time scale, real timers)', () => {
	const emu = useEmulator();
	const api = new Client(emu);
	let receiver: Receiver;

	afterEach(() => receiver?.close());

	const events = (messageId: string) => receiver.received.filter((r) => r.json.data.messageId === messageId);

	it('posts message.pending, message.sent and message.delivered with the spec payload', async () => {
		receiver = await startReceiver();
		const sent = await api.post(
			'/api/sms/send-api',
			{ phoneNumber: '+254712345678', message: 'Hi', senderId: 'SVCTEST', reference: 'ref-7', webhookUrl: receiver.url },
			{ key },
		);
		const id = sent.body.data.messageId;
		await waitFor('three events', () => events(id).length === 3, 10_000, 10);
		const byEvent = Object.fromEntries(events(id).map((r) => [r.json.event, r.json]));
		expect(Object.keys(byEvent).sort()).toEqual(['message.delivered', 'message.pending', 'message.sent']);
		expect(byEvent['message.pending']).toEqual({
			event: 'message.pending',
			timestamp: expect.stringMatching(/^\d{4}-/),
			data: {
				messageId: id,
				batchId: null,
				phoneNumber: '+254712345678',
				status: 'PENDING',
				senderId: 'SVCTEST',
				reference: 'ref-7',
				deliveredAt: null,
				creditsUsed: 1,
			},
		});
		expect(byEvent['message.sent'].data.status).toBe('SENT');
		expect(byEvent['message.delivered'].data).toMatchObject({ status: 'DELIVERED', deliveredAt: expect.stringMatching(/^\d{4}-/) });
		expect(byEvent['message.delivered'].timestamp).toBe(byEvent['message.delivered'].data.deliveredAt);
		expect(receiver.received[0].headers['content-type']).toBe('application/json');
		expect(receiver.received[0].headers['x-svc-signature']).toBeUndefined();
		// the emulator records an attempt once it has the answer, just after the receiver saw it
		const attempts = await waitFor('three records', () => {
			const list = emu.control.webhookAttempts({ messageId: id });
			return list.length === 3 && list;
		}, 10_000, 10);
		expect(attempts.every((a) => a.status === 200 && a.attempt === 1 && a.nextAttemptAt === null)).toBe(true);
	});

	it.each([
		['+254712345999', 'message.failed', 'FAILED', { code: 'DESTINATION_NOT_REACHABLE', message: expect.any(String) }],
		['+254712345997', 'message.failed', 'FAILED', { code: 'BLACKLISTED', message: expect.any(String) }],
		['+254712345998', 'message.expired', 'EXPIRED', undefined],
	])('ends %s with %s', async (phoneNumber, event, status, reason) => {
		receiver = await startReceiver();
		const sent = await api.post('/api/sms/send-api', { phoneNumber, message: 'Hi', webhookUrl: receiver.url }, { key });
		const id = sent.body.data.messageId;
		const final = await waitFor(event, () => events(id).find((r) => r.json.event === event), 10_000, 10);
		expect(final.json.data).toMatchObject({ status, deliveredAt: null, creditsUsed: 1 });
		expect(final.json.data.reason).toEqual(reason);
		const lookup = await api.get(`/api/sms/messages/${id}`, { key });
		expect(lookup.body.data).toMatchObject({ status, deliveredAt: null, sentAt: expect.any(String) });
	});

	it('uses the account default webhook for bulk messages (with batchId) and the per-message URL over it', async () => {
		receiver = await startReceiver();
		const own = await startReceiver();
		try {
			emu.control.updateAccount('acc_demo', { webhookUrl: receiver.url });
			const batch = await api.post('/api/sms/send-api', { message: 'x', recipients: [{ phoneNumber: '+254712345678' }] }, { key });
			const single = await api.post('/api/sms/send-api', { phoneNumber: '+254712345679', message: 'x', webhookUrl: own.url }, { key });
			const batchMessage = batch.body.data.messages[0].messageId;
			await waitFor('events', () => events(batchMessage).length === 3 && own.received.length === 3, 10_000, 10);
			expect(events(batchMessage)[0].json.data.batchId).toBe(batch.body.data.batchId);
			expect(events(single.body.data.messageId)).toHaveLength(0);
			expect(own.received.every((r) => r.json.data.messageId === single.body.data.messageId)).toBe(true);
		} finally {
			await own.close();
		}
	});

	it('signs the raw body with X-Svc-Signature: sha256=<hex HMAC-SHA256> when a secret is set', async () => {
		receiver = await startReceiver();
		emu.control.updateAccount('acc_demo', { webhookUrl: receiver.url, webhookSecret: 'whsec_test' });
		await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key });
		await waitFor('a webhook', () => receiver.received.length >= 1, 10_000, 10);
		const [first] = receiver.received;
		const expected = `sha256=${createHmac('sha256', 'whsec_test').update(first.raw).digest('hex')}`;
		expect(first.headers['x-svc-signature']).toBe(expected);
		const [attempt] = await waitFor('the record', () => emu.control.webhookAttempts().length > 0 && emu.control.webhookAttempts(), 10_000, 10);
		expect(attempt.signed).toBe(true);
	});

	it('retries on the scaled schedule until a 200 (any other status is a failure)', async () => {
		// message.pending: 500, 503, 204, then 200; the other events answer 200 at once.
		const answers = [500, 503, 204, 200];
		let pendingCalls = 0;
		receiver = await startReceiver((_, r) => (r.json.event === 'message.pending' ? answers[pendingCalls++] : 200));
		const sent = await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x', webhookUrl: receiver.url }, { key });
		const id = sent.body.data.messageId;
		const attempts = await waitFor('four attempts', () => {
			const list = emu.control.webhookAttempts({ messageId: id, event: 'message.pending' });
			return list.length === 4 && list;
		}, 10_000, 10);
		expect(attempts.map((a) => [a.attempt, a.status])).toEqual([
			[1, 500],
			[2, 503],
			[3, 204],
			[4, 200],
		]);
		// The scheduled spacing is the spec's delays × 0.001 (30 ms, 2 min → 120 ms, 10 min → 600 ms), counted from
		// the attempt's end: the record's time is its start, and a loaded machine answers slowly.
		const scheduled = attempts.slice(0, 3).map((a) => Date.parse(a.nextAttemptAt!) - Date.parse(a.time) - a.durationMs);
		scheduled.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual([30, 120, 600][i] - 2));
		expect(scheduled[0]).toBeLessThan(scheduled[1]);
		expect(scheduled[1]).toBeLessThan(scheduled[2]);
		// And the receiver saw them no sooner than that.
		const arrivals = receiver.received.filter((r) => r.json.event === 'message.pending').map((r) => r.time);
		const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
		gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual([30, 120, 600][i] - 2));
		expect(attempts[3].nextAttemptAt).toBeNull();
	});

	it('counts a network error as a failed attempt', async () => {
		receiver = await startReceiver();
		await receiver.close();
		emu.control.updateAccount('acc_demo', { webhookUrl: receiver.url });
		await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key });
		const [first] = await waitFor('an attempt', () => {
			const list = emu.control.webhookAttempts({ event: 'message.pending' });
			return list.length > 0 && list;
		}, 10_000, 10);
		expect(first).toMatchObject({ attempt: 1, status: null, error: expect.stringMatching(/ECONNREFUSED/), nextAttemptAt: expect.any(String) });
	});
});

describe('webhook retries and scheduling through the clock (time scale 1, advance)', () => {
	const emu = useEmulator({ timeScale: 1 });
	const api = new Client(emu);
	let receiver: Receiver;

	beforeAll(async () => {
		receiver = await startReceiver(() => 500);
	});
	afterAll(async () => {
		await receiver.close();
	});

	it('makes 6 attempts at 0 s, 30 s, 2 min, 10 min, 30 min and 2 h, then discards the event', async () => {
		const sent = await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x', webhookUrl: receiver.url }, { key });
		const id = sent.body.data.messageId;
		const pending = () => emu.control.webhookAttempts({ messageId: id, event: 'message.pending' });
		await waitFor('first attempt', () => pending().length === 1, 10_000, 10);
		await emu.control.advance(29_000);
		expect(pending()).toHaveLength(1);
		await emu.control.advance(4 * 3600_000);
		const attempts = pending();
		expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(attempts.every((a) => a.status === 500)).toBe(true);
		const gaps = attempts.slice(1).map((a, i) => Date.parse(a.time) - Date.parse(attempts[i].time));
		[30_000, 120_000, 600_000, 1_800_000, 7_200_000].forEach((delay, i) => {
			expect(gaps[i]).toBeGreaterThanOrEqual(delay);
			expect(gaps[i]).toBeLessThan(delay + 5_000);
		});
		expect(attempts[5].nextAttemptAt).toBeNull();
		await emu.control.advance(24 * 3600_000);
		expect(pending()).toHaveLength(6);
		// every event of the message went through the same schedule
		for (const event of ['message.sent', 'message.delivered']) {
			expect(emu.control.webhookAttempts({ messageId: id, event })).toHaveLength(6);
		}
	});

	it('keeps a scheduled message PENDING until the clock reaches scheduledAt, then runs the lifecycle', async () => {
		const scheduledAt = new Date(Date.parse(emu.control.now()) + 24 * 3600_000).toISOString();
		const sent = await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x', scheduledAt }, { key });
		expect(sent.body.data.status).toBe('PENDING');
		await emu.control.advance(23 * 3600_000);
		expect(emu.control.messages()[0].status).toBe('PENDING');
		await emu.control.advance(3600_000 + 1000);
		expect(emu.control.messages()[0].status).toBe('SENT');
		await emu.control.advance(3000);
		const [message] = emu.control.messages();
		expect(message.status).toBe('DELIVERED');
		expect(Date.parse(message.sentAt!) - Date.parse(scheduledAt)).toBe(1000);
		expect(Date.parse(message.deliveredAt!) - Date.parse(message.sentAt!)).toBe(3000);
	});

	it('advances the clock over HTTP', async () => {
		const before = Date.parse(emu.control.now());
		const res = await api.post('/__emulator/clock/advance', { ms: 60_000 });
		expect(res.status).toBe(200);
		expect(Date.parse(res.body.data.now) - before).toBeGreaterThanOrEqual(60_000);
		const clock = await api.get('/__emulator/clock');
		expect(Date.parse(clock.body.data.now)).toBeGreaterThanOrEqual(Date.parse(res.body.data.now));
		expect((await api.post('/__emulator/clock/advance', { ms: -1 })).status).toBe(400);
	});
});
