import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_LOGINS } from './index';
import { Client, expectError } from './testkit';

const emu = useEmulator({ timeScale: 1 });
const api = new Client(emu);
let token: string;

beforeEach(async () => {
	token = await api.login();
});

const credits = () => emu.state.accounts.get('acc_demo')!.credits;
const later = (ms: number) => new Date(Date.parse(emu.control.now()) + ms).toISOString();
const create = (body: Record<string, unknown>, t = token) =>
	api.post('/api/sms/campaigns', { name: 'Promo', message: 'Sale today', senderId: 'SVCTEST', ...body }, { token: t });

describe('campaign create', () => {
	it('creates a DRAFT without scheduledAt: 201 with a bare object, numbers formatted and deduplicated', async () => {
		const res = await create({ manualNumbers: ['0712345678', '+254712345678', '712345678', '254 712 345 679'] });
		expect(res.status).toBe(201);
		expect(res.body).toEqual({
			id: expect.any(Number),
			name: 'Promo',
			status: 'DRAFT',
			totalRecipients: 2,
			scheduledAt: null,
			createdAt: expect.stringMatching(/^\d{4}-/),
		});
		const details = await api.get(`/api/sms/campaigns/${res.body.id}`, { token });
		expect(details.body).toMatchObject({ manualNumbers: ['+254712345678', '+254712345679'], senderId: 'SVCTEST', message: 'Sale today' });
	});

	it('creates a SCHEDULED campaign with a future scheduledAt and merges contact groups', async () => {
		const scheduledAt = later(3600_000);
		const res = await create({ manualNumbers: ['+254711000001'], contactGroupIds: [1, 2], scheduledAt });
		expect(res.status).toBe(201);
		expect(res.body).toMatchObject({ status: 'SCHEDULED', totalRecipients: 4, scheduledAt });
	});

	it('validates the body', async () => {
		expectError(await create({}), 400, 'BAD_REQUEST', /At least one of manualNumbers or contactGroupIds is required/);
		expectError(await create({ manualNumbers: [] }), 400, 'BAD_REQUEST', /At least one of manualNumbers or contactGroupIds/);
		expectError(await create({ manualNumbers: '0712345678' }), 400, 'BAD_REQUEST', /manualNumbers must be an array of strings/);
		expectError(await create({ contactGroupIds: ['1'] }), 400, 'BAD_REQUEST', /contactGroupIds must be an array of integers/);
		expectError(await create({ senderId: undefined, manualNumbers: ['0712345678'] }), 400, 'BAD_REQUEST', /senderId is required/);
		expectError(await create({ name: '', manualNumbers: ['0712345678'] }), 400, 'BAD_REQUEST', /name must not be empty/);
		expectError(await create({ manualNumbers: ['0712345678'], scheduledAt: '2020-01-01T00:00:00Z' }), 400, 'BAD_REQUEST', /scheduledAt must be in the future/);
		expectError(await create({ contactGroupIds: [9] }), 422, 'INVALID_CONTACT_GROUP', /Contact group 9 does not exist/);
		expectError(await create({ manualNumbers: ['12345'] }), 422, 'INVALID_PHONE_NUMBER', /12345/);
		expectError(await create({ senderId: 'SVCSMS', manualNumbers: ['0712345678'] }), 422, 'INVALID_SENDER_ID', /not an approved sender ID of this account/);
		expectError(await create({ senderId: 'bad id', manualNumbers: ['0712345678'] }), 422, 'INVALID_SENDER_ID', /1-11 characters/);
		expectError(await create({ senderId: 'ACMEKE', manualNumbers: ['+233241234567'] }), 422, 'INVALID_SENDER_ID', /not pre-approved for GH \(recipient \+233241234567\)/);
		expectError(await create({ manualNumbers: ['0712345678'], message: 'a'.repeat(1601) }), 422, 'MESSAGE_TOO_LONG');
	});

	it('requires a valid Bearer token', async () => {
		expectError(await api.post('/api/sms/campaigns', { name: 'x' }), 401, 'UNAUTHORIZED', /Missing Authorization/);
		const tampered = `${token.slice(0, -2)}${token.endsWith('xx') ? 'yy' : 'xx'}`;
		expectError(await create({ manualNumbers: ['0712345678'] }, tampered), 401, 'UNAUTHORIZED', /Invalid access token/);
		// The last base64url character carries 2 spare bits: a signature differing only there decodes to
		// the same bytes, and must still be refused (it was accepted about once in 1,000 runs).
		const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
		const last = ALPHABET.indexOf(token[token.length - 1]);
		const spareBitsOnly = `${token.slice(0, -1)}${ALPHABET[last ^ 1]}`;
		expectError(await create({ manualNumbers: ['0712345678'] }, spareBitsOnly), 401, 'UNAUTHORIZED', /Invalid access token/);
		expectError(await api.get('/api/sms/campaigns', { key: 'svc_test_free_0001' }), 401, 'UNAUTHORIZED');
	});
});

describe('campaign list and get', () => {
	it('lists newest first with page, limit, total and totalPages; only the own account', async () => {
		for (let i = 1; i <= 12; i++) await create({ name: `C${i}`, manualNumbers: ['0712345678'] });
		const other = await api.login(SEED_LOGINS.broke);
		const page1 = await api.get('/api/sms/campaigns', { token });
		expect(page1.status).toBe(200);
		expect(page1.body).toMatchObject({ total: 12, page: 1, limit: 10, totalPages: 2 });
		expect(page1.body.data).toHaveLength(10);
		expect(page1.body.data[0]).toEqual({
			id: expect.any(Number),
			name: 'C12',
			status: 'DRAFT',
			totalRecipients: 1,
			successfulDeliveries: 0,
			failedDeliveries: 0,
			cost: 0,
			scheduledAt: null,
			sentAt: null,
			createdAt: expect.any(String),
		});
		const page2 = await api.get('/api/sms/campaigns?page=2&limit=5', { token });
		expect(page2.body).toMatchObject({ total: 12, page: 2, limit: 5, totalPages: 3 });
		expect(page2.body.data.map((c: { name: string }) => c.name)).toEqual(['C7', 'C6', 'C5', 'C4', 'C3']);
		expect((await api.get('/api/sms/campaigns', { token: other })).body).toEqual({ data: [], total: 0, page: 1, limit: 10, totalPages: 0 });
		expectError(await api.get('/api/sms/campaigns?limit=101', { token }), 400, 'BAD_REQUEST', /limit must be an integer between 1 and 100/);
		expectError(await api.get('/api/sms/campaigns?page=0', { token }), 400, 'BAD_REQUEST', /page/);
		const id = page1.body.data[0].id;
		expectError(await api.get(`/api/sms/campaigns/${id}`, { token: other }), 404, 'NOT_FOUND');
		expectError(await api.get('/api/sms/campaigns/9999', { token }), 404, 'NOT_FOUND');
	});
});

describe('campaign transitions', () => {
	it('sends a DRAFT: SENDING with cost charged, then COMPLETED with delivery counts', async () => {
		const { body: c } = await create({ manualNumbers: ['+254712345678', '+254712345679', '+254712345999', '+254712345998'], message: 'a'.repeat(200) });
		const sent = await api.post(`/api/sms/campaigns/${c.id}/send`, undefined, { token });
		expect(sent.status).toBe(200);
		expect(sent.body).toMatchObject({ id: c.id, status: 'SENDING', cost: 8, sentAt: expect.any(String) });
		expect(credits()).toBe(992);
		expect(emu.control.messages({ campaignId: c.id })).toHaveLength(4);
		await emu.control.advance(5000);
		const done = await api.get(`/api/sms/campaigns/${c.id}`, { token });
		expect(done.body).toMatchObject({ status: 'COMPLETED', successfulDeliveries: 2, failedDeliveries: 2, cost: 8, completedAt: expect.any(String) });
		const [item] = (await api.get('/api/sms/campaigns', { token })).body.data;
		expect(item).toMatchObject({ status: 'COMPLETED', successfulDeliveries: 2, failedDeliveries: 2, cost: 8, sentAt: sent.body.sentAt });
	});

	it('gives 402 INSUFFICIENT_CREDITS on send when the balance is too low, charging nothing', async () => {
		const { body: c } = await create({ contactGroupIds: [1] });
		emu.control.updateAccount('acc_demo', { credits: 2 });
		expectError(await api.post(`/api/sms/campaigns/${c.id}/send`, undefined, { token }), 402, 'INSUFFICIENT_CREDITS', /3 required, 2 available/);
		expect(credits()).toBe(2);
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body.status).toBe('DRAFT');
	});

	it('sends a SCHEDULED campaign automatically when due', async () => {
		const { body: c } = await create({ contactGroupIds: [2], scheduledAt: later(3600_000) });
		// 10 s before it is due (the emulator's clock also runs in real time: on a loaded machine a 1 s
		// margin let the login's hour run out first, and the look-up answered 401).
		await emu.control.advance(3590_000);
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body.status).toBe('SCHEDULED');
		await emu.control.advance(11_000);
		token = await api.login(); // the clock moved past the first token's hour
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body).toMatchObject({ status: 'SENDING', cost: 2 });
		await emu.control.advance(5000);
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body).toMatchObject({ status: 'COMPLETED', successfulDeliveries: 2 });
	});

	it('marks a scheduled campaign FAILED when the credits do not suffice at the due time', async () => {
		const { body: c } = await create({ contactGroupIds: [1], scheduledAt: later(60_000) });
		emu.control.updateAccount('acc_demo', { credits: 1 });
		await emu.control.advance(61_000);
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body.status).toBe('FAILED');
		expect(credits()).toBe(1);
	});

	it('cancels DRAFT and SCHEDULED campaigns; a cancelled scheduled campaign is not sent', async () => {
		const { body: draft } = await create({ manualNumbers: ['0712345678'] });
		const { body: scheduled } = await create({ manualNumbers: ['0712345678'], scheduledAt: later(60_000) });
		for (const c of [draft, scheduled]) {
			const res = await api.post(`/api/sms/campaigns/${c.id}/cancel`, undefined, { token });
			expect(res.status).toBe(200);
			expect(res.body).toMatchObject({ id: c.id, status: 'CANCELLED' });
		}
		await emu.control.advance(120_000);
		expect(emu.control.messages()).toHaveLength(0);
		expectError(
			await api.post(`/api/sms/campaigns/${draft.id}/cancel`, undefined, { token }),
			409,
			'INVALID_CAMPAIGN_STATUS',
			new RegExp(`Campaign ${draft.id} is CANCELLED; this action is allowed only when the status is DRAFT, SCHEDULED`),
		);
		expectError(await api.post(`/api/sms/campaigns/${draft.id}/send`, undefined, { token }), 409, 'INVALID_CAMPAIGN_STATUS');
		expectError(await api.patch(`/api/sms/campaigns/${draft.id}`, { name: 'x' }, { token }), 409, 'INVALID_CAMPAIGN_STATUS');
	});

	it('updates a DRAFT or SCHEDULED campaign with PATCH', async () => {
		const { body: c } = await create({ manualNumbers: ['0712345678'] });
		const scheduledAt = later(600_000);
		const res = await api.patch(`/api/sms/campaigns/${c.id}`, { name: 'Renamed', contactGroupIds: [1], scheduledAt }, { token });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ id: c.id, name: 'Renamed', status: 'SCHEDULED', totalRecipients: 4, scheduledAt, contactGroupIds: [1] });
		const unscheduled = await api.patch(`/api/sms/campaigns/${c.id}`, { scheduledAt: null }, { token });
		expect(unscheduled.body).toMatchObject({ status: 'DRAFT', scheduledAt: null });
		await emu.control.advance(700_000);
		expect(emu.control.messages()).toHaveLength(0);
		expectError(await api.patch(`/api/sms/campaigns/${c.id}`, {}, { token }), 400, 'BAD_REQUEST', /at least one of/);
		expectError(await api.patch(`/api/sms/campaigns/${c.id}`, { contactGroupIds: [42] }, { token }), 422, 'INVALID_CONTACT_GROUP');
		expectError(await api.patch(`/api/sms/campaigns/${c.id}`, { senderId: 'NOPE' }, { token }), 422, 'INVALID_SENDER_ID');
		expect((await api.get(`/api/sms/campaigns/${c.id}`, { token })).body.name).toBe('Renamed');
	});

	it('deletes campaigns except while SENDING', async () => {
		const { body: c } = await create({ manualNumbers: ['0712345678'] });
		await api.post(`/api/sms/campaigns/${c.id}/send`, undefined, { token });
		expectError(await api.delete(`/api/sms/campaigns/${c.id}`, { token }), 409, 'INVALID_CAMPAIGN_STATUS', /is SENDING/);
		await emu.control.advance(5000);
		const res = await api.delete(`/api/sms/campaigns/${c.id}`, { token });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ id: c.id, deleted: true });
		expectError(await api.get(`/api/sms/campaigns/${c.id}`, { token }), 404, 'NOT_FOUND');
		expectError(await api.delete(`/api/sms/campaigns/${c.id}`, { token }), 404, 'NOT_FOUND');
	});
});
