import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { Client, expectError } from './testkit';

const emu = useEmulator({ timeScale: 1 });
const api = new Client(emu);
const key = SEED_KEYS.business;

const body = (text: string) => ({ type: 'BODY', text });
const template = (overrides: Record<string, unknown> = {}) => ({
	name: 'order_update',
	category: 'UTILITY',
	language: 'en',
	components: [body('Order {{1}} ships on {{2}}')],
	...overrides,
});
const create = (t: unknown, k: string = key) => api.post('/api/chat/templates', t, { key: k });

describe('template create', () => {
	it('creates a PENDING template: 201 {success, data}', async () => {
		const res = await create(
			template({
				components: [
					{ type: 'HEADER', format: 'TEXT', text: 'Hi {{1}}' },
					body('Order {{1}} ships on {{2}}'),
					{ type: 'FOOTER', text: 'Reply STOP to opt out' },
					{
						type: 'BUTTONS',
						buttons: [
							{ type: 'QUICK_REPLY', text: 'OK' },
							{ type: 'URL', text: 'Track', url: 'https://x.test/{{1}}' },
							{ type: 'PHONE_NUMBER', text: 'Call', phone_number: '+254700000001' },
						],
					},
				],
			}),
		);
		expect(res.status).toBe(201);
		expect(res.body).toEqual({
			success: true,
			data: { id: expect.any(String), name: 'order_update', status: 'PENDING', category: 'UTILITY', language: 'en', createdAt: expect.any(String) },
		});
	});

	it('gives 409 TEMPLATE_ALREADY_EXISTS for a second template of the same name in one account', async () => {
		await create(template());
		expectError(await create(template()), 409, 'TEMPLATE_ALREADY_EXISTS', /order_update/);
		expect((await create(template(), SEED_KEYS.nochat)).status).toBe(201);
	});

	it.each([
		['no BODY', [{ type: 'FOOTER', text: 'x' }], /BODY: a BODY component is required/],
		['a BODY over 1024 characters', [body('a'.repeat(1025))], /BODY: text exceeds 1024 characters/],
		['26 variables', [body(Array.from({ length: 26 }, (_, i) => `{{${i + 1}}}`).join(' '))], /BODY: at most 25 variables/],
		['a gap in the variables', [body('{{1}} and {{3}}')], /BODY: variables must be numbered \{\{1\}\} to \{\{2\}\} without gaps; \{\{2\}\} is missing/],
		['a named variable', [body('Hi {{name}}')], /BODY: variable \{\{name\}\} is not numbered/],
		['an empty BODY', [body('')], /BODY: text is required/],
		['two BODY components', [body('a'), body('b')], /BODY: only one BODY component/],
		['an unknown component', [body('a'), { type: 'CAROUSEL' }], /components\[1\]: type 'CAROUSEL' is not one of/],
		['a HEADER of unknown format', [body('a'), { type: 'HEADER', format: 'AUDIO' }], /HEADER: format must be one of TEXT, IMAGE, DOCUMENT, VIDEO/],
		['a TEXT HEADER over 60 characters', [body('a'), { type: 'HEADER', format: 'TEXT', text: 'h'.repeat(61) }], /HEADER: text exceeds 60 characters/],
		['a FOOTER over 60 characters', [body('a'), { type: 'FOOTER', text: 'f'.repeat(61) }], /FOOTER: text exceeds 60 characters/],
		['4 QUICK_REPLY buttons', [body('a'), { type: 'BUTTONS', buttons: Array(4).fill({ type: 'QUICK_REPLY', text: 'q' }) }], /BUTTONS: at most 3 QUICK_REPLY/],
		['3 URL buttons', [body('a'), { type: 'BUTTONS', buttons: Array(3).fill({ type: 'URL', text: 'u', url: 'https://x.test' }) }], /BUTTONS: at most 2 URL/],
		['2 PHONE_NUMBER buttons', [body('a'), { type: 'BUTTONS', buttons: Array(2).fill({ type: 'PHONE_NUMBER', text: 'p', phone_number: '+254700000001' }) }], /BUTTONS: at most 1 PHONE_NUMBER/],
		['a URL button without url', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'u' }] }], /BUTTONS: a URL button needs an http\(s\) url/],
		['a URL button with an ftp url', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'u', url: 'ftp://x.test' }] }], /BUTTONS: a URL button needs an http\(s\) url/],
		['a PHONE_NUMBER button without phone_number', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'PHONE_NUMBER', text: 'Call' }] }], /BUTTONS: a PHONE_NUMBER button needs an E\.164 phone_number/],
		['a QUICK_REPLY button without text', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: ' ' }] }], /BUTTONS: a QUICK_REPLY button needs a text/],
		['a COPY_CODE button outside AUTHENTICATION', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE' }] }], /BUTTONS: COPY_CODE buttons are allowed only in AUTHENTICATION/],
		['an OTP button outside AUTHENTICATION', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'OTP' }] }], /BUTTONS: OTP buttons are allowed only in AUTHENTICATION/],
		['an unknown button type', [body('a'), { type: 'BUTTONS', buttons: [{ type: 'FLOW' }] }], /BUTTONS: button type 'FLOW'/],
		['no buttons', [body('a'), { type: 'BUTTONS', buttons: [] }], /BUTTONS: at least one button/],
	])('rejects %s with 422 INVALID_TEMPLATE', async (_, components, message) => {
		expectError(await create(template({ components })), 422, 'INVALID_TEMPLATE', message);
	});

	it('checks the category and the caps of authentication buttons', async () => {
		expectError(await create(template({ category: 'PROMO' })), 422, 'INVALID_TEMPLATE', /category: must be one of MARKETING, UTILITY, AUTHENTICATION, SERVICE/);
		const auth = (buttons: unknown[]) =>
			template({ name: `otp_${buttons.length}`, category: 'AUTHENTICATION', components: [body('Code {{1}}'), { type: 'BUTTONS', buttons }] });
		expect((await create(auth([{ type: 'COPY_CODE' }, { type: 'OTP' }]))).status).toBe(201);
		expectError(await create(auth([{ type: 'OTP' }, { type: 'OTP' }, { type: 'COPY_CODE' }])), 422, 'INVALID_TEMPLATE', /at most 1 OTP/);
		for (const format of ['IMAGE', 'DOCUMENT', 'VIDEO']) {
			expect((await create(template({ name: `media_${format}`, components: [{ type: 'HEADER', format }, body('x')] }))).status).toBe(201);
		}
		expect((await create(template({ name: 'max', components: [body(Array.from({ length: 25 }, (_, i) => `{{${i + 1}}}`).join(' '))] }))).status).toBe(201);
	});

	it('rejects wrong types with 400 BAD_REQUEST naming the field', async () => {
		expectError(await create({ category: 'UTILITY', language: 'en', components: [] }), 400, 'BAD_REQUEST', /name is required/);
		expectError(await create(template({ language: 7 })), 400, 'BAD_REQUEST', /language must be a string/);
		expectError(await create(template({ components: 'BODY' })), 400, 'BAD_REQUEST', /components must be an array/);
		expectError(await create(template({ components: [{ text: 'x' }] })), 400, 'BAD_REQUEST', /components\[0\]\.type is required/);
		expectError(await create(template({ components: [body('a'), { type: 'BUTTONS', buttons: 'x' }] })), 400, 'BAD_REQUEST', /components\[1\]\.buttons must be an array/);
	});
});

describe('template review, get, list and delete', () => {
	it('approves after the review delay (2 s × time scale), with approvedAt', async () => {
		await create(template());
		const before = await api.get('/api/chat/templates/order_update', { key });
		expect(before.body.data).toMatchObject({ status: 'PENDING', rejectedReason: null, approvedAt: null });
		await emu.control.advance(2000);
		const after = await api.get('/api/chat/templates/order_update', { key });
		expect(after.status).toBe(200);
		expect(after.body.data).toEqual({
			id: expect.any(String),
			name: 'order_update',
			status: 'APPROVED',
			category: 'UTILITY',
			language: 'en',
			components: [body('Order {{1}} ships on {{2}}')],
			rejectedReason: null,
			createdAt: expect.any(String),
			approvedAt: expect.any(String),
		});
		expect(Date.parse(after.body.data.approvedAt) - Date.parse(after.body.data.createdAt)).toBe(2000);
	});

	it('rejects a template whose name contains "reject", with rejectedReason', async () => {
		await create(template({ name: 'please_reject_me' }));
		await emu.control.advance(2000);
		const res = await api.get('/api/chat/templates/please_reject_me', { key });
		expect(res.body.data).toMatchObject({ status: 'REJECTED', rejectedReason: expect.any(String), approvedAt: null });
	});

	it('lets the control surface set any review outcome', async () => {
		await create(template());
		const res = await api.post('/__emulator/templates/order_update/review', { status: 'REJECTED', reason: 'Too promotional' });
		expect(res.body.data).toMatchObject({ status: 'REJECTED', rejectedReason: 'Too promotional' });
		await emu.control.advance(2000);
		expect((await api.get('/api/chat/templates/order_update', { key })).body.data.status).toBe('REJECTED');
		expect(emu.control.reviewTemplate('order_update', 'PAUSED').status).toBe('PAUSED');
		expect((await api.post('/__emulator/templates/nope/review', { status: 'APPROVED' })).status).toBe(404);
		expect((await api.post('/__emulator/templates/order_update/review', { status: 'MAYBE' })).status).toBe(400);
	});

	it('lists with pagination and filters, newest first, own account only', async () => {
		await create(template({ name: 't1' }));
		await create(template({ name: 't2', category: 'MARKETING' }));
		await create(template({ name: 't3', language: 'sw' }));
		await create(template({ name: 'other' }), SEED_KEYS.nochat);
		const all = await api.get('/api/chat/templates', { key });
		expect(all.status).toBe(200);
		expect(all.body.success).toBe(true);
		expect(all.body.data.map((t: { name: string }) => t.name)).toEqual(['t3', 't2', 't1']);
		expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
		const paged = await api.get('/api/chat/templates?page=2&limit=2', { key });
		expect(paged.body.data.map((t: { name: string }) => t.name)).toEqual(['t1']);
		expect(paged.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
		const filtered = async (q: string) => (await api.get(`/api/chat/templates?${q}`, { key })).body.data.map((t: { name: string }) => t.name);
		expect(await filtered('category=MARKETING')).toEqual(['t2']);
		expect(await filtered('language=sw')).toEqual(['t3']);
		expect(await filtered('status=APPROVED')).toEqual([]);
		await emu.control.advance(2000);
		expect(await filtered('status=APPROVED')).toEqual(['t3', 't2', 't1']);
		expectError(await api.get('/api/chat/templates?limit=0', { key }), 400, 'BAD_REQUEST', /limit/);
	});

	it('deletes a template; unknown names are 404', async () => {
		await create(template());
		const res = await api.delete('/api/chat/templates/order_update', { key });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ success: true, data: { name: 'order_update', deleted: true } });
		expectError(await api.get('/api/chat/templates/order_update', { key }), 404, 'NOT_FOUND', /order_update/);
		expectError(await api.delete('/api/chat/templates/order_update', { key }), 404, 'NOT_FOUND');
		expectError(await api.get('/api/chat/templates/order_update'), 401, 'UNAUTHORIZED');
	});
});
