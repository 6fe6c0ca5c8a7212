import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { Client, expectError } from './testkit';
import { waitFor } from '../helpers/waitFor';

const emu = useEmulator();
const api = new Client(emu);
const key = SEED_KEYS.business;

const credits = () => emu.state.accounts.get('acc_demo')!.credits;
const bulk = (body: unknown, k: string = key) => api.post('/api/sms/send-api', body, { key: k });
const numbers = (n: number) => Array.from({ length: n }, (_, i) => ({ phoneNumber: `+2547${String(i).padStart(8, '0')}` }));

describe('bulk SMS', () => {
	it('accepts every valid recipient with 202, substituting {{variables}} per recipient', async () => {
		const res = await bulk({
			message: 'Hi {{name}}, your code is {{ code }}. {{missing}}',
			senderId: 'SVCTEST',
			reference: 'batch-ref',
			recipients: [
				{ phoneNumber: '+254712345678', variables: { name: 'Amina', code: 1234 } },
				{ phoneNumber: '+2348031234567', variables: { name: 'Chidi' } },
			],
		});
		expect(res.status).toBe(202);
		expect(res.body).toEqual({
			success: true,
			data: {
				batchId: expect.any(String),
				totalRecipients: 2,
				totalSegments: 2,
				totalCredits: 2,
				creditsRemaining: 998,
				messages: [
					{ messageId: expect.any(String), phoneNumber: '+254712345678', status: 'PENDING' },
					{ messageId: expect.any(String), phoneNumber: '+2348031234567', status: 'PENDING' },
				],
			},
		});
		const stored = emu.control.messages({ batchId: res.body.data.batchId });
		expect(stored.map((m) => m.message)).toEqual([
			'Hi Amina, your code is 1234. {{missing}}',
			'Hi Chidi, your code is {{ code }}. {{missing}}',
		]);
		expect(stored.every((m) => m.reference === 'batch-ref')).toBe(true);
	});

	it('charges segments per recipient after substitution', async () => {
		const res = await bulk({
			message: '{{text}}',
			recipients: [
				{ phoneNumber: '+254712345678', variables: { text: 'a'.repeat(161) } },
				{ phoneNumber: '+254712345679', variables: { text: 'short' } },
			],
		});
		expect(res.body.data).toMatchObject({ totalSegments: 3, totalCredits: 3, creditsRemaining: 997 });
	});

	it('reports a partial success with zero-based indexes of the rejected recipients', async () => {
		const res = await bulk({
			message: 'Hello',
			senderId: 'ACMEKE',
			recipients: [
				{ phoneNumber: '+254712345678' },
				{ phoneNumber: '0712345678' },
				{ phoneNumber: '+233241234567' },
				{ phoneNumber: '+256712345678' },
			],
		});
		expect(res.status).toBe(202);
		expect(res.body.success).toBe(true);
		expect(res.body.data).toMatchObject({
			batchId: expect.any(String),
			totalRecipients: 4,
			successful: 2,
			failed: 2,
			errors: [
				{ index: 1, phoneNumber: '0712345678', error: { code: 'INVALID_PHONE_NUMBER', message: expect.stringMatching(/E\.164/) } },
				{ index: 2, phoneNumber: '+233241234567', error: { code: 'INVALID_SENDER_ID', message: expect.stringMatching(/not pre-approved for GH/) } },
			],
			messages: [
				{ messageId: expect.any(String), phoneNumber: '+254712345678', status: 'PENDING' },
				{ messageId: expect.any(String), phoneNumber: '+256712345678', status: 'PENDING' },
			],
		});
		expect(credits()).toBe(998);
	});

	it('rejects a bulk where every recipient is invalid with 422 and the per-recipient details, charging nothing', async () => {
		const res = await bulk({ message: 'x', recipients: [{ phoneNumber: '12' }, { phoneNumber: '+1202555' }] });
		expectError(res, 422, 'INVALID_PHONE_NUMBER', /No valid recipients/);
		expect(res.body.error.details).toEqual([
			{ index: 0, phoneNumber: '12', error: { code: 'INVALID_PHONE_NUMBER', message: expect.any(String) } },
			{ index: 1, phoneNumber: '+1202555', error: { code: 'INVALID_PHONE_NUMBER', message: expect.any(String) } },
		]);
		expect(credits()).toBe(1000);
	});

	it('gives 422 EMPTY_RECIPIENTS for an empty list', async () => {
		expectError(await bulk({ message: 'x', recipients: [] }), 422, 'EMPTY_RECIPIENTS', /recipients must not be empty/);
	});

	it('gives 413 PAYLOAD_TOO_LARGE above the key plan recipients per call', async () => {
		expectError(await bulk({ message: 'x', recipients: numbers(101) }, SEED_KEYS.free), 413, 'PAYLOAD_TOO_LARGE', /101 recipients exceed the limit of 100/);
		expectError(await bulk({ message: 'x', recipients: numbers(1001) }, SEED_KEYS.starter), 413, 'PAYLOAD_TOO_LARGE', /limit of 1000/);
		expectError(await bulk({ message: 'x', recipients: numbers(10001) }, SEED_KEYS.business), 413, 'PAYLOAD_TOO_LARGE', /limit of 10000/);
		expectError(await bulk({ message: 'x', recipients: numbers(20001) }, SEED_KEYS.enterprise), 413, 'PAYLOAD_TOO_LARGE', /limit of 20000/);
		expect((await bulk({ message: 'x', recipients: numbers(100) }, SEED_KEYS.free)).status).toBe(202);
		expect(credits()).toBe(900);
	});

	it('gives 402 INSUFFICIENT_CREDITS when the whole batch does not fit the balance, charging nothing', async () => {
		emu.control.updateAccount('acc_demo', { credits: 3 });
		expectError(await bulk({ message: 'x', recipients: numbers(4) }), 402, 'INSUFFICIENT_CREDITS', /4 required, 3 available/);
		expect(credits()).toBe(3);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('rejects malformed recipients, too-long messages and bad sender formats for the whole request', async () => {
		expectError(await bulk({ message: 'x', recipients: 'a' }), 400, 'BAD_REQUEST', /recipients must be an array/);
		expectError(await bulk({ message: 'x', recipients: [{ phoneNumber: '+254712345678' }, 5] }), 400, 'BAD_REQUEST', /recipients\[1\] must be an object/);
		expectError(await bulk({ message: 'x', recipients: [{}] }), 400, 'BAD_REQUEST', /recipients\[0\]\.phoneNumber is required/);
		expectError(
			await bulk({ message: 'x', recipients: [{ phoneNumber: '+254712345678', variables: { a: { b: 1 } } }] }),
			400,
			'BAD_REQUEST',
			/recipients\[0\]\.variables\.a/,
		);
		expectError(await bulk({ recipients: numbers(1) }), 400, 'BAD_REQUEST', /message is required/);
		expectError(await bulk({ message: 'a'.repeat(1601), recipients: numbers(1) }), 422, 'MESSAGE_TOO_LONG');
		expectError(await bulk({ message: 'x', senderId: 'bad id', recipients: numbers(1) }), 422, 'INVALID_SENDER_ID');
		const perRecipient = await bulk({
			message: '{{t}}',
			recipients: [{ phoneNumber: '+254712345678', variables: { t: 'a'.repeat(1601) } }, { phoneNumber: '+254712345679' }],
		});
		expect(perRecipient.body.data.errors).toEqual([
			{ index: 0, phoneNumber: '+254712345678', error: { code: 'MESSAGE_TOO_LONG', message: expect.any(String) } },
		]);
	});

	it('holds scheduled messages as PENDING until due', async () => {
		const scheduledAt = new Date(Date.parse(emu.control.now()) + 3_600_000).toISOString();
		const res = await bulk({ message: 'later', scheduledAt, recipients: numbers(2) });
		expect(res.status).toBe(202);
		await new Promise((r) => setTimeout(r, 50));
		expect(emu.control.messages().map((m) => m.status)).toEqual(['PENDING', 'PENDING']);
		await emu.control.advance(3_600_000 + 1000);
		expect(emu.control.messages().map((m) => m.status)).toEqual(['DELIVERED', 'DELIVERED']);
		expect(Date.parse(emu.control.messages()[0].sentAt!)).toBeGreaterThanOrEqual(Date.parse(scheduledAt));
	});
});

describe('batch lookup and analytics', () => {
	it('counts a batch by status: PROCESSING, then COMPLETED with completedAt', async () => {
		const sent = await bulk({
			message: 'x',
			recipients: ['+254712345678', '+254712345999', '+254712345998', '+254712345997'].map((phoneNumber) => ({ phoneNumber })),
		});
		const path = `/api/sms/batches/${sent.body.data.batchId}`;
		const first = await api.get(path, { key });
		expect(first.status).toBe(200);
		expect(first.body.data.total).toBe(4);
		const done = await waitFor('batch completion', async () => {
			const r = await api.get(path, { key });
			return r.body.data.status === 'COMPLETED' && r.body.data;
		}, 10_000, 10);
		expect(done).toEqual({
			batchId: sent.body.data.batchId,
			status: 'COMPLETED',
			total: 4,
			delivered: 1,
			failed: 2,
			pending: 0,
			expired: 1,
			completedAt: expect.stringMatching(/^\d{4}-/),
		});
		expectError(await api.get(path, { key: SEED_KEYS.nochat }), 404, 'NOT_FOUND');
		expectError(await api.get('/api/sms/batches/batch_nope', { key }), 404, 'NOT_FOUND');
	});

	it('reports a pending batch as PROCESSING with completedAt null', async () => {
		const scheduledAt = new Date(Date.parse(emu.control.now()) + 60_000).toISOString();
		const sent = await bulk({ message: 'x', scheduledAt, recipients: numbers(2) });
		const res = await api.get(`/api/sms/batches/${sent.body.data.batchId}`, { key });
		expect(res.body.data).toMatchObject({ status: 'PROCESSING', total: 2, pending: 2, delivered: 0, completedAt: null });
	});

	it('computes delivery rates for a date range', async () => {
		await bulk({
			message: 'x',
			recipients: ['+254712345678', '+254712345679', '+254712345999', '+254712345998'].map((phoneNumber) => ({ phoneNumber })),
		});
		await waitFor('final statuses', () => emu.control.messages().every((m) => m.finalAt), 10_000, 10);
		const res = await api.get('/api/sms/analytics/delivery-rates', { key });
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual({
			period: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\/\d{4}-\d{2}-\d{2}$/),
			totalSent: 4,
			delivered: 2,
			failed: 1,
			expired: 1,
			deliveryRate: 50,
			averageDeliveryTime: expect.stringMatching(/^\d+\.\ds$/),
		});
		const today = emu.control.now().slice(0, 10);
		const ranged = await api.get(`/api/sms/analytics/delivery-rates?startDate=${today}&endDate=${today}`, { key });
		expect(ranged.body.data).toMatchObject({ period: `${today}/${today}`, totalSent: 4 });
		const past = await api.get('/api/sms/analytics/delivery-rates?startDate=2020-01-01&endDate=2020-01-31', { key });
		expect(past.body.data).toMatchObject({ totalSent: 0, deliveryRate: 0, averageDeliveryTime: '0.0s' });
		const other = await api.get('/api/sms/analytics/delivery-rates', { key: SEED_KEYS.nochat });
		expect(other.body.data.totalSent).toBe(0);
		expectError(await api.get('/api/sms/analytics/delivery-rates?startDate=yesterday', { key }), 400, 'BAD_REQUEST', /startDate/);
		expectError(await api.get('/api/sms/analytics/delivery-rates?startDate=2021-02-01&endDate=2021-01-01', { key }), 400, 'BAD_REQUEST', /startDate must not be after endDate/);
	});
});
