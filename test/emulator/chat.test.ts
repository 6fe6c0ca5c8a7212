import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from './index';
import { Client, expectError } from './testkit';

const emu = useEmulator({ timeScale: 1 });
const api = new Client(emu);
const key = SEED_KEYS.business;
const to = '+254712345678';

const send = (body: Record<string, unknown>, k: string = key) => api.post('/api/chat/messages', { phoneNumber: to, ...body }, { key: k });
const credits = (id = 'acc_demo') => emu.state.accounts.get(id)!.credits;

describe('chat messages', () => {
	it('sends a text message: 200 with the chat message result and 1 credit', async () => {
		const res = await send({ type: 'text', text: { body: 'Hello' } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			success: true,
			data: { messageId: expect.any(String), status: 'SENT', phoneNumber: to, channel: 'chat', creditsUsed: 1, creditsRemaining: 999 },
		});
		expect(emu.control.chatMessages()).toEqual([
			expect.objectContaining({ messageId: res.body.data.messageId, type: 'text', recipientType: 'individual', content: { body: 'Hello' } }),
		]);
	});

	it.each([
		['image', { link: 'https://cdn.test/a/photo.JPG', caption: 'c'.repeat(1024) }],
		['image', { link: 'https://cdn.test/photo.webp?size=large' }],
		['document', { link: 'https://cdn.test/report.pdf', filename: 'f'.repeat(240) }],
		['document', { link: 'https://cdn.test/sheet.xlsx' }],
		['video', { link: 'https://cdn.test/clip.3gpp' }],
		['video', { link: 'https://cdn.test/clip.mp4', caption: 'watch' }],
	])('sends %s media %j', async (type, media) => {
		const res = await send({ type, [type]: media, recipientType: 'group' });
		expect(res.status).toBe(200);
		expect(res.body.data.status).toBe('SENT');
	});

	it.each([
		['image', 'http://cdn.test/photo.jpg', /public HTTPS URL/],
		['image', 'not a url', /public HTTPS URL/],
		['image', 'https://cdn.test/photo.gif', /jpg, jpeg, png, webp/],
		['document', 'https://cdn.test/file.txt', /pdf, doc, docx, xls, xlsx, ppt, pptx/],
		['video', 'https://cdn.test/clip.mov', /mp4, 3gp, 3gpp/],
		['video', 'https://cdn.test/clip', /mp4, 3gp, 3gpp/],
	])('rejects a %s link %s with 422 INVALID_MEDIA_URL', async (type, link, message) => {
		expectError(await send({ type, [type]: { link } }), 422, 'INVALID_MEDIA_URL', message);
		expect(credits()).toBe(1000);
	});

	it('rejects malformed bodies with 400 BAD_REQUEST naming the field', async () => {
		expectError(await send({ type: 'text' }), 400, 'BAD_REQUEST', /text is required when type is text/);
		expectError(await send({ type: 'text', text: {} }), 400, 'BAD_REQUEST', /text\.body is required/);
		expectError(await send({ type: 'audio', audio: {} }), 400, 'BAD_REQUEST', /type must be one of text, image, document, video, template/);
		expectError(await send({ text: { body: 'x' } }), 400, 'BAD_REQUEST', /type is required/);
		expectError(await send({ type: 'text', text: { body: 'x' }, phoneNumber: '0712345678' }), 400, 'BAD_REQUEST', /phoneNumber must be in E\.164/);
		expectError(await send({ type: 'text', text: { body: 'x' }, recipientType: 'broadcast' }), 400, 'BAD_REQUEST', /recipientType must be one of individual, group/);
		expectError(await send({ type: 'image', image: { caption: 'x' } }), 400, 'BAD_REQUEST', /image\.link is required/);
		expectError(await send({ type: 'image', image: { link: 'https://c.test/a.png', caption: 'c'.repeat(1025) } }), 400, 'BAD_REQUEST', /image\.caption must be at most 1024/);
		expectError(await send({ type: 'image', image: { link: 'https://c.test/a.png', filename: 'a.png' } }), 400, 'BAD_REQUEST', /image\.filename is allowed only for documents/);
		expectError(await send({ type: 'document', document: { link: 'https://c.test/a.pdf', filename: 'f'.repeat(241) } }), 400, 'BAD_REQUEST', /document\.filename must be at most 240/);
		expectError(await api.call('POST', '/api/chat/messages', { key, raw: '{' }), 400, 'BAD_REQUEST', /Malformed JSON/);
		expect(credits()).toBe(1000);
	});

	it('gives 403 CHAT_NUMBER_NOT_REGISTERED when the account sender is not registered', async () => {
		expectError(await send({ type: 'text', text: { body: 'x' } }, SEED_KEYS.nochat), 403, 'CHAT_NUMBER_NOT_REGISTERED', /not registered/);
	});

	it('gives 403 CHAT_OPT_IN_REQUIRED until the recipient opts in', async () => {
		const other = '+254700000001';
		expectError(await send({ phoneNumber: other, type: 'text', text: { body: 'x' } }), 403, 'CHAT_OPT_IN_REQUIRED', /\+254700000001 has not opted in/);
		expect((await api.post('/__emulator/opt-ins', { phoneNumber: other })).status).toBe(201);
		expect((await send({ phoneNumber: other, type: 'text', text: { body: 'x' } })).status).toBe(200);
	});

	it('gives 402 INSUFFICIENT_CREDITS without a credit', async () => {
		emu.control.addOptIn({ accountId: 'acc_broke', phoneNumber: to });
		expectError(await send({ type: 'text', text: { body: 'x' } }, SEED_KEYS.broke), 402, 'INSUFFICIENT_CREDITS');
		expect(emu.control.chatMessages()).toHaveLength(0);
	});

	it('gives 401 without an API key', async () => {
		expectError(await api.post('/api/chat/messages', { phoneNumber: to, type: 'text', text: { body: 'x' } }), 401, 'UNAUTHORIZED');
	});
});

describe('chat template messages', () => {
	const templateMessage = (name: string, code: string, bodyParams: number, headerParams = 0) => ({
		type: 'template',
		template: {
			name,
			language: { code },
			components: [
				...(headerParams ? [{ type: 'header', parameters: Array(headerParams).fill({ type: 'text', text: 'H' }) }] : []),
				{ type: 'body', parameters: Array(bodyParams).fill({ type: 'text', text: 'v' }) },
			],
		},
	});

	beforeEach(async () => {
		const res = await api.post(
			'/api/chat/templates',
			{
				name: 'order_update',
				category: 'UTILITY',
				language: 'en',
				components: [
					{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
					{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ships {{3}}' },
				],
			},
			{ key },
		);
		expect(res.status).toBe(201);
	});

	it('needs an APPROVED template in the requested language with the right parameter counts', async () => {
		expectError(await send(templateMessage('order_update', 'en', 3, 1)), 422, 'INVALID_TEMPLATE', /is PENDING; only APPROVED templates can be sent/);
		emu.control.reviewTemplate('order_update', 'APPROVED');
		const res = await send(templateMessage('order_update', 'en', 3, 1));
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({ status: 'SENT', channel: 'chat', creditsUsed: 1 });
		expectError(await send(templateMessage('missing', 'en', 0)), 422, 'INVALID_TEMPLATE', /Template 'missing' does not exist/);
		expectError(await send(templateMessage('order_update', 'sw', 3, 1)), 422, 'INVALID_TEMPLATE', /exists in 'en', not 'sw'/);
		expectError(await send(templateMessage('order_update', 'en', 2, 1)), 422, 'INVALID_TEMPLATE', /body takes 3 parameter\(s\), 2 given/);
		expectError(await send(templateMessage('order_update', 'en', 3, 0)), 422, 'INVALID_TEMPLATE', /header takes 1 parameter\(s\), 0 given/);
		emu.control.reviewTemplate('order_update', 'PAUSED');
		expectError(await send(templateMessage('order_update', 'en', 3, 1)), 422, 'INVALID_TEMPLATE', /is PAUSED/);
	});

	it('rejects a malformed template object with 400', async () => {
		expectError(await send({ type: 'template', template: { name: 'order_update' } }), 400, 'BAD_REQUEST', /template\.language/);
		expectError(
			await send({ type: 'template', template: { name: 'order_update', language: { code: 'en' }, components: [{ type: 'footer', parameters: [] }] } }),
			400,
			'BAD_REQUEST',
			/template\.components\[0\]\.type must be 'header' or 'body'/,
		);
		expectError(
			await send({ type: 'template', template: { name: 'order_update', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text' }] }] } }),
			400,
			'BAD_REQUEST',
			/parameters\[0\] must be/,
		);
	});
});
