import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { Client, expectError } from './testkit';
import { waitFor } from '../helpers/waitFor';

const emu = useEmulator();
const api = new Client(emu);
const key = SEED_KEYS.business;

const credits = () => emu.state.accounts.get('acc_demo')!.credits;
const send = (body: unknown, k: string = key, path = '/api/sms/send-api') => api.post(path, body, { key: k });

describe('single SMS', () => {
	it('accepts a valid message with 202 and the documented data', async () => {
		const res = await send({ phoneNumber: '+254712345678', message: 'Hello', senderId: 'SVCTEST', reference: 'r-1' });
		expect(res.status).toBe(202);
		expect(res.body).toEqual({
			success: true,
			data: {
				messageId: expect.any(String),
				status: 'PENDING',
				phoneNumber: '+254712345678',
				senderId: 'SVCTEST',
				messageLength: 5,
				segments: 1,
				creditsUsed: 1,
				creditsRemaining: 999,
			},
		});
		expect(credits()).toBe(999);
		const [stored] = emu.control.messages();
		expect(stored).toMatchObject({ messageId: res.body.data.messageId, reference: 'r-1', batchId: null });
	});

	it('uses SVCSMS when senderId is omitted, in every country', async () => {
		const res = await send({ phoneNumber: '+233241234567', message: 'Hi' });
		expect(res.status).toBe(202);
		expect(res.body.data.senderId).toBe('SVCSMS');
	});

	it('also accepts the single shape on /api/sms/send', async () => {
		const res = await send({ phoneNumber: '+2348031234567', message: 'Hi', senderId: 'ACMEKE' }, key, '/api/sms/send');
		expect(res.status).toBe(202);
		expect(res.body.data).toMatchObject({ status: 'PENDING', phoneNumber: '+2348031234567', creditsUsed: 1, creditsRemaining: 999 });
		expectError(await send({ recipients: [{ phoneNumber: '+254712345678' }], message: 'x' }, key, '/api/sms/send'), 400, 'BAD_REQUEST', /phoneNumber is required/);
	});

	it.each([
		['160 GSM characters', 'a'.repeat(160), 1],
		['161 GSM characters', 'a'.repeat(161), 2],
		['320 GSM characters', 'a'.repeat(320), 2],
		['321 GSM characters', 'a'.repeat(321), 3],
		['1600 GSM characters', 'a'.repeat(1600), 10],
		['80 extension characters (160 septets)', '€'.repeat(80), 1],
		['81 extension characters (162 septets)', '{'.repeat(81), 2],
		['70 Unicode characters', 'ш'.repeat(70), 1],
		['71 Unicode characters', 'ш'.repeat(71), 2],
		['an emoji in GSM text', `${'a'.repeat(68)}😀`, 1],
		['35 emoji (70 UTF-16 units)', '😀'.repeat(35), 1],
		['36 emoji (72 UTF-16 units)', '😀'.repeat(36), 2],
	])('counts segments and credits: %s', async (_, message, segments) => {
		const res = await send({ phoneNumber: '+254712345678', message });
		expect(res.status).toBe(202);
		expect(res.body.data).toMatchObject({ segments, creditsUsed: segments, creditsRemaining: 1000 - segments });
		expect(res.body.data.messageLength).toBe([...message].length);
	});

	it('rejects malformed JSON, non-JSON bodies and wrong types with 400 naming the field', async () => {
		expectError(await api.call('POST', '/api/sms/send-api', { key, raw: '{"phoneNumber": ' }), 400, 'BAD_REQUEST', /Malformed JSON/);
		expectError(
			await api.call('POST', '/api/sms/send-api', { key, raw: 'phoneNumber=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
			400,
			'BAD_REQUEST',
			/Content-Type/,
		);
		expectError(await send([1, 2]), 400, 'BAD_REQUEST', /JSON object/);
		expectError(await send({ phoneNumber: 254712345678, message: 'x' }), 400, 'BAD_REQUEST', /phoneNumber must be a string/);
		expectError(await send({ phoneNumber: '+254712345678' }), 400, 'BAD_REQUEST', /message is required/);
		expectError(await send({ phoneNumber: '+254712345678', message: '' }), 400, 'BAD_REQUEST', /message must not be empty/);
		expectError(await send({ phoneNumber: '+254712345678', message: 'x', senderId: 5 }), 400, 'BAD_REQUEST', /senderId must be a string/);
		expectError(await send({ phoneNumber: '+254712345678', message: 'x', webhookUrl: 'ftp://x' }), 400, 'BAD_REQUEST', /webhookUrl/);
		expectError(await send({ phoneNumber: '+254712345678', message: 'x', scheduledAt: 'tomorrow' }), 400, 'BAD_REQUEST', /scheduledAt must be an ISO 8601/);
		expectError(
			await send({ phoneNumber: '+254712345678', message: 'x', scheduledAt: '2020-01-01T00:00:00Z' }),
			400,
			'BAD_REQUEST',
			/scheduledAt must be in the future/,
		);
		expectError(await send({ message: 'x' }), 400, 'BAD_REQUEST', /phoneNumber \(single\) or recipients \(bulk\) is required/);
		expectError(await send({ phoneNumber: '+254712345678', recipients: [], message: 'x' }), 400, 'BAD_REQUEST', /not both/);
		expect(credits()).toBe(1000);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it.each(['254712345678', '+2540712345678', '+25471234567', '+1202555012', '+254012345678', '+234803123456', '0712345678', '+254 712 345 678'])(
		'rejects %s with 422 INVALID_PHONE_NUMBER',
		async (phoneNumber) => {
			expectError(await send({ phoneNumber, message: 'x' }), 422, 'INVALID_PHONE_NUMBER', /E\.164/);
		},
	);

	it('accepts the national lengths of the six countries', async () => {
		for (const phoneNumber of ['+254712345678', '+2348031234567', '+256712345678', '+255712345678', '+250788123456', '+233241234567']) {
			expect((await send({ phoneNumber, message: 'x' })).status).toBe(202);
		}
	});

	it('rejects more than 1600 characters with 422 MESSAGE_TOO_LONG (code points, not UTF-16 units)', async () => {
		expectError(await send({ phoneNumber: '+254712345678', message: 'a'.repeat(1601) }), 422, 'MESSAGE_TOO_LONG', /1601 characters; the maximum is 1600/);
		expect((await send({ phoneNumber: '+254712345678', message: '😀'.repeat(1600) })).status).toBe(202);
	});

	it('rejects sender IDs of bad format or not approved for the destination with 422 INVALID_SENDER_ID', async () => {
		const to = (phoneNumber: string, senderId: string) => send({ phoneNumber, message: 'x', senderId });
		expectError(await to('+254712345678', 'svctest'), 422, 'INVALID_SENDER_ID', /1-11 characters, letters A-Z and digits 0-9/);
		expectError(await to('+254712345678', 'ABCDEFGHIJKL'), 422, 'INVALID_SENDER_ID', /1-11 characters/);
		expectError(await to('+254712345678', 'ACME KE'), 422, 'INVALID_SENDER_ID', /1-11 characters/);
		expectError(await to('+254712345678', ''), 422, 'INVALID_SENDER_ID', /1-11 characters/);
		expectError(await to('+254712345678', 'OTHERCO'), 422, 'INVALID_SENDER_ID', /not an approved sender ID of this account/);
		expectError(await to('+233241234567', 'ACMEKE'), 422, 'INVALID_SENDER_ID', /not pre-approved for GH/);
		expectError(await to('+2348031234567', '20880'), 422, 'INVALID_SENDER_ID', /Numeric sender ID '20880' is not allowed in NG/);
		expectError(await to('+233241234567', '20880'), 422, 'INVALID_SENDER_ID', /numeric sender IDs are allowed only in KE/);
		expect((await to('+254712345678', '20880')).status).toBe(202);
		expect((await to('+233241234567', 'SVCTEST')).status).toBe(202);
		expect((await to('+256712345678', 'ACMEKE')).status).toBe(202);
		expect(credits()).toBe(997);
	});

	it('gives 402 INSUFFICIENT_CREDITS and charges nothing when the balance is too low', async () => {
		expectError(await send({ phoneNumber: '+254712345678', message: 'x' }, SEED_KEYS.broke), 402, 'INSUFFICIENT_CREDITS', /1 required, 0 available/);
		emu.control.updateAccount('acc_demo', { credits: 2 });
		expectError(await send({ phoneNumber: '+254712345678', message: 'a'.repeat(400) }), 402, 'INSUFFICIENT_CREDITS', /3 required, 2 available/);
		expect(credits()).toBe(2);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('gives 401 UNAUTHORIZED for a missing or unknown API key', async () => {
		expectError(await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }), 401, 'UNAUTHORIZED', /Missing API key/);
		expectError(await send({ phoneNumber: '+254712345678', message: 'x' }, 'svc_test_nope'), 401, 'UNAUTHORIZED', /Invalid API key/);
		expect(emu.control.messages()).toHaveLength(0);
	});
});

describe('message lookup and sender IDs', () => {
	it('returns the message resource, only to the owning account', async () => {
		const sent = await send({ phoneNumber: '+254712345678', message: 'Hello there' });
		const id = sent.body.data.messageId;
		const res = await api.get(`/api/sms/messages/${id}`, { key: SEED_KEYS.free });
		expect(res.status).toBe(200);
		expect(res.body.success).toBe(true);
		expect(Object.keys(res.body.data).sort()).toEqual(
			['messageId', 'phoneNumber', 'message', 'status', 'senderId', 'segments', 'creditsUsed', 'deliveredAt', 'sentAt', 'createdAt'].sort(),
		);
		expect(res.body.data).toMatchObject({
			messageId: id,
			phoneNumber: '+254712345678',
			message: 'Hello there',
			senderId: 'SVCSMS',
			segments: 1,
			creditsUsed: 1,
			createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
		});
		const delivered = await waitFor('delivery', async () => {
			const r = await api.get(`/api/sms/messages/${id}`, { key });
			return r.body.data.status === 'DELIVERED' && r.body.data;
		}, 10_000, 10);
		expect(Date.parse(delivered.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(delivered.sentAt));
		expect(Date.parse(delivered.sentAt)).toBeGreaterThanOrEqual(Date.parse(delivered.createdAt));
		expectError(await api.get(`/api/sms/messages/${id}`, { key: SEED_KEYS.nochat }), 404, 'NOT_FOUND', /not found/);
		expectError(await api.get('/api/sms/messages/msg_nope', { key }), 404, 'NOT_FOUND', /not found/);
	});

	it('lists the account sender IDs on /api/sms/sender-ids', async () => {
		const res = await api.get('/api/sms/sender-ids', { key });
		expect(res.status).toBe(200);
		expect(res.body.success).toBe(true);
		expect(res.body.data).toEqual([
			{ id: expect.any(String), senderId: 'SVCTEST', status: 'ACTIVE', type: 'ALPHANUMERIC', countries: ['KE', 'NG', 'UG', 'TZ', 'RW', 'GH'], createdAt: expect.any(String) },
			{ id: expect.any(String), senderId: 'ACMEKE', status: 'ACTIVE', type: 'ALPHANUMERIC', countries: ['KE', 'NG', 'UG', 'TZ', 'RW'], createdAt: expect.any(String) },
			{ id: expect.any(String), senderId: '20880', status: 'ACTIVE', type: 'NUMERIC', countries: ['KE'], createdAt: expect.any(String) },
		]);
		expectError(await api.get('/api/sms/sender-ids'), 401, 'UNAUTHORIZED');
	});
});
