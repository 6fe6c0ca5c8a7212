/**
 * Chat Message → Send against the emulator over real HTTP, inside n8n-core's execution context:
 * every message type, the chat error codes as the user sees them, the checks made before sending,
 * and the template picker and variable mapper.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from '../emulator/index';
import { executeNode, listSearch, resourceMapping } from '../helpers/n8n';
import { chatSend, errorOf, jsonTemplate, locator, mapped, NOT_OPTED_IN, OPTED_IN, OPTED_IN_2, OPTED_IN_NG, startErrorService, startMediaHost, templateOp, waitUntil } from './helpers';

const emu = useEmulator();

const chatPosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/messages');
const credits = () => emu.state.accounts.get('acc_demo')!.credits;

/** Creates a template through the node and waits for the emulator's (scaled) review to approve it. */
async function approvedTemplate(name: string, components: unknown[], language = 'en') {
	await templateOp(emu.url, 'create', jsonTemplate(name, components, 'UTILITY', language));
	await waitUntil(async () => [...emu.state.templates.values()].find((t) => t.name === name && t.status === 'APPROVED'), `${name} approved`);
}

describe('message types', () => {
	it('sends a text message and outputs the chat message result', async () => {
		const [[out]] = await chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'text', text: 'Your order has shipped' });
		expect(out.json).toEqual({
			accepted: true,
			messageId: expect.stringMatching(/^chat_/),
			status: 'SENT',
			phoneNumber: OPTED_IN,
			channel: 'chat',
			creditsUsed: 1,
			creditsRemaining: 999,
			type: 'text',
			recipientType: 'individual',
			sandbox: true,
		});
		expect(out.pairedItem).toEqual({ item: 0 });
		const [stored] = emu.control.chatMessages();
		expect(stored).toMatchObject({ messageId: out.json.messageId, type: 'text', content: { body: 'Your order has shipped' } });
	});

	it('reads national numbers with Default Country and sends to a group', async () => {
		const [[out]] = await chatSend(emu.url, {
			phoneNumber: '0712 345 679',
			messageType: 'text',
			text: 'Team update',
			recipientType: 'group',
			options: { defaultCountry: 'KE' },
		});
		expect(out.json).toMatchObject({ accepted: true, phoneNumber: OPTED_IN_2, recipientType: 'group' });
		expect(emu.control.chatMessages()[0]).toMatchObject({ phoneNumber: OPTED_IN_2, recipientType: 'group' });
	});

	it('sends an image with a caption', async () => {
		const [[out]] = await chatSend(emu.url, {
			phoneNumber: OPTED_IN,
			messageType: 'image',
			mediaLink: 'https://cdn.example.com/receipts/1042.PNG',
			caption: 'Your receipt',
		});
		expect(out.json).toMatchObject({ accepted: true, status: 'SENT', type: 'image' });
		expect(emu.control.chatMessages()[0]).toMatchObject({
			type: 'image',
			content: { link: 'https://cdn.example.com/receipts/1042.PNG', caption: 'Your receipt' },
		});
	});

	it('sends a document with caption and file name', async () => {
		const [[out]] = await chatSend(emu.url, {
			phoneNumber: OPTED_IN_NG,
			messageType: 'document',
			mediaLink: 'https://cdn.example.com/invoices/inv-77.pdf?sig=abc',
			caption: 'Invoice 77',
			filename: 'invoice-77.pdf',
		});
		expect(out.json).toMatchObject({ accepted: true, phoneNumber: OPTED_IN_NG, type: 'document' });
		expect(emu.control.chatMessages()[0].content).toEqual({
			link: 'https://cdn.example.com/invoices/inv-77.pdf?sig=abc',
			caption: 'Invoice 77',
			filename: 'invoice-77.pdf',
		});
	});

	it('sends a video (MP4 and 3GP)', async () => {
		const out = await chatSend(
			emu.url,
			{ phoneNumber: OPTED_IN, messageType: 'video', mediaLink: '={{ $json.link }}' },
			[{ link: 'https://cdn.example.com/clip.mp4' }, { link: 'https://cdn.example.com/clip.3gp' }],
		);
		expect(out[0].map((o) => o.json.type)).toEqual(['video', 'video']);
		expect(emu.control.chatMessages().map((m) => m.content)).toEqual([
			{ link: 'https://cdn.example.com/clip.mp4' },
			{ link: 'https://cdn.example.com/clip.3gp' },
		]);
	});

	it('sends an approved template with its header and body variables mapped from the items', async () => {
		await approvedTemplate('order_shipped', [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}.' },
			{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ships {{3}}. Thanks {{1}}!' },
		]);
		const out = await chatSend(
			emu.url,
			{
				phoneNumber: '={{ $json.phone }}',
				messageType: 'template',
				template: locator('order_shipped'),
				templateVariables: mapped({
					header_1: '={{ $json.order }}',
					body_1: '={{ $json.name }}',
					body_2: '={{ $json.order }}',
					body_3: 'today',
				}),
			},
			[
				{ phone: OPTED_IN, name: 'Amina', order: 'A-1' },
				{ phone: OPTED_IN_NG, name: 'Chidi', order: 'B-2' },
			],
		);
		expect(out[0].map((o) => o.json)).toEqual([
			expect.objectContaining({ accepted: true, type: 'template', templateName: 'order_shipped', phoneNumber: OPTED_IN }),
			expect.objectContaining({ accepted: true, type: 'template', templateName: 'order_shipped', phoneNumber: OPTED_IN_NG }),
		]);
		expect(emu.control.chatMessages().map((m) => m.content)).toEqual([
			{
				name: 'order_shipped',
				language: { code: 'en' },
				components: [
					{ type: 'header', parameters: [{ type: 'text', text: 'A-1' }] },
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: 'Amina' },
							{ type: 'text', text: 'A-1' },
							{ type: 'text', text: 'today' },
						],
					},
				],
			},
			expect.objectContaining({ name: 'order_shipped' }),
		]);
		// One template lookup for both items.
		expect(emu.control.requests().filter((r) => r.method === 'GET' && r.path === '/api/chat/templates/order_shipped')).toHaveLength(1);
	});

	it('sends a template without variables and one typed by name with its language', async () => {
		await approvedTemplate('welcome_sw', [{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: 'Karibu!' }], 'sw');
		const [[out]] = await chatSend(emu.url, {
			phoneNumber: OPTED_IN,
			messageType: 'template',
			template: locator('welcome_sw', 'name'),
			templateLanguage: 'SW',
			templateVariables: mapped({}),
		});
		expect(out.json).toMatchObject({ accepted: true, templateName: 'welcome_sw' });
		expect(emu.control.chatMessages()[0].content).toEqual({ name: 'welcome_sw', language: { code: 'sw' }, components: [] });
	});
});

describe('template checks before sending', () => {
	beforeEach(async () => {
		await approvedTemplate('two_vars', [{ type: 'BODY', text: 'Hi {{1}}, code {{2}}.' }]);
		emu.control.clearRequests();
	});

	it('stops when a variable of the template has no value', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'Amina', body_2: '' }),
			}),
		);
		expect(error.message).toBe('Item 0: Template "two_vars" has 2 variables but 1 value was mapped: Body {{2}} has no value');
		expect(chatPosts()).toHaveLength(0);
	});

	it('stops when more values are mapped than the template has variables', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'Amina', body_2: '42', body_3: 'extra' }),
			}),
		);
		expect(error.message).toBe(
			'Item 0: Template "two_vars" has 2 variables but 3 values were mapped: Body {{3}} is not in the template (refresh the field list of "Template Variables")',
		);
		expect(chatPosts()).toHaveLength(0);
	});

	it('stops when the language does not match the template', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars', 'name'),
				templateLanguage: 'fr',
				templateVariables: mapped({ body_1: 'a', body_2: 'b' }),
			}),
		);
		expect(error.message).toBe('Item 0: "Template Language" is fr, but template "two_vars" is in en');
		expect(chatPosts()).toHaveLength(0);
	});

	it('stops for a template that does not exist', async () => {
		const error = await errorOf(
			chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'template', template: locator('no_such', 'name'), templateVariables: mapped({}) }),
		);
		expect(error.message).toBe('Item 0: Template "no_such" does not exist in this account (names are case-sensitive)');
		expect(chatPosts()).toHaveLength(0);
	});

	it('stops for a template that is not approved, with the rejection reason', async () => {
		emu.control.reviewTemplate('two_vars', 'REJECTED', 'Promotional content in a utility template');
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'a', body_2: 'b' }),
			}),
		);
		expect(error.message).toBe(
			'Item 0: Template "two_vars" is REJECTED (Promotional content in a utility template): only APPROVED templates can be sent',
		);
		expect(chatPosts()).toHaveLength(0);
	});
});

describe('chat errors of the service, as the user sees them', () => {
	it('403 CHAT_OPT_IN_REQUIRED explains opt-in and templates', async () => {
		const error = await errorOf(chatSend(emu.url, { phoneNumber: NOT_OPTED_IN, messageType: 'text', text: 'Hi' }));
		expect(error.message).toBe(
			`POST /api/chat/messages failed: CHAT_OPT_IN_REQUIRED – Recipient ${NOT_OPTED_IN} has not opted in to chat messages`,
		);
		// One line each: what happened, how a recipient opts in, what to send then.
		expect(error.description?.split('\n')).toEqual([
			'The recipient has not opted in to chat messages from your business.',
			expect.stringMatching(/^How they opt in: .*they message your chat number first\.$/),
			'After the opt-in, start the conversation with an approved template (Type: Template).',
		]);
		expect(emu.control.chatMessages()).toHaveLength(0);
		expect(credits()).toBe(1000);
	});

	it('403 CHAT_NUMBER_NOT_REGISTERED points to the registration', async () => {
		const error = await errorOf(chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'text', text: 'Hi' }, [{}], SEED_KEYS.nochat));
		expect(error.message).toBe(
			'POST /api/chat/messages failed: CHAT_NUMBER_NOT_REGISTERED – The chat sender number of this account is not registered',
		);
		expect(error.description).toBe(
			"The account's chat sender number is not registered with the chat platform. Finish the registration in the dashboard.",
		);
		expect(emu.control.chatMessages()).toHaveLength(0);
	});

	it('422 INVALID_MEDIA_URL (a link the platform cannot fetch) lists the allowed links', async () => {
		// The emulator rejects only links the node already refuses (not HTTPS, wrong extension), so the
		// service's "inaccessible" case is played by a stand-in that answers with the spec's envelope.
		const service = await startErrorService(422, 'INVALID_MEDIA_URL', 'image.link is not accessible');
		try {
			const error = await errorOf(
				chatSend(service.url, { phoneNumber: OPTED_IN, messageType: 'image', mediaLink: 'https://files.example.com/gone.jpg' }),
			);
			expect(error.message).toBe('POST /api/chat/messages failed: INVALID_MEDIA_URL – image.link is not accessible');
			expect(error.description).toBe(
				'The media link must be a public HTTPS URL of an allowed file type (image: JPEG, PNG, WEBP; document: PDF, DOC(X), XLS(X), PPT(X); video: MP4, 3GPP).',
			);
			expect(service.received).toEqual([
				{
					method: 'POST',
					path: '/api/chat/messages',
					body: { phoneNumber: OPTED_IN, type: 'image', recipientType: 'individual', image: { link: 'https://files.example.com/gone.jpg' } },
				},
			]);
		} finally {
			await service.close();
		}
	});

	it('with Continue On Fail, a refused recipient becomes an output item and the others are sent', async () => {
		const out = await executeNode(
			{
				parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Hi' },
				credentials: apiKeyCredentials(emu.url),
				settings: { onError: 'continueRegularOutput' },
			},
			[{ phone: OPTED_IN }, { phone: NOT_OPTED_IN }],
		);
		expect(out[0].map((o) => o.json)).toEqual([
			expect.objectContaining({ accepted: true, phoneNumber: OPTED_IN }),
			expect.objectContaining({ accepted: false, phoneNumber: NOT_OPTED_IN, errorCode: 'CHAT_OPT_IN_REQUIRED' }),
		]);
		expect(emu.control.chatMessages()).toHaveLength(1);
	});
});

describe('media and text checks before sending', () => {
	const send = (parameters: Record<string, unknown>) => chatSend(emu.url, { phoneNumber: OPTED_IN, ...parameters });

	it.each([
		['image', 'https://cdn.example.com/doc.pdf', '"Media Link" must link to an image file (JPEG, PNG or WEBP): its path must end in .jpg, .jpeg, .png or .webp (got .pdf)'],
		['document', 'https://cdn.example.com/photo.jpg', '"Media Link" must link to a document file (PDF, DOC, DOCX, XLS, XLSX, PPT or PPTX): its path must end in .pdf, .doc, .docx, .xls, .xlsx, .ppt or .pptx (got .jpg)'],
		['video', 'https://cdn.example.com/clip.mov', '"Media Link" must link to a video file (MP4 or 3GPP): its path must end in .mp4, .3gp or .3gpp (got .mov)'],
		['image', 'http://cdn.example.com/photo.jpg', '"Media Link" must be a public HTTPS URL (starting with https://) (got "http://cdn.example.com/photo.jpg")'],
		['image', 'cdn.example.com/photo.jpg', '"Media Link" must be a full URL starting with https:// (got "cdn.example.com/photo.jpg")'],
		['video', 'https://cdn.example.com/watch?v=1', '"Media Link" must link to a video file (MP4 or 3GPP): its path must end in .mp4, .3gp or .3gpp (it has no file extension) (got "https://cdn.example.com/watch?…")'],
	])('refuses the %s link %s', async (messageType, mediaLink, message) => {
		const error = await errorOf(send({ messageType, mediaLink }));
		expect(error.message).toBe(`Item 0: ${message}`);
		expect(chatPosts()).toHaveLength(0);
	});

	it('refuses a caption over 1024 characters', async () => {
		const error = await errorOf(send({ messageType: 'image', mediaLink: 'https://cdn.example.com/a.jpg', caption: 'é'.repeat(1025) }));
		expect(error.message).toBe(`Item 0: "Caption" must be at most 1024 characters (it has 1025) (got "${'é'.repeat(39)}…")`);
		expect(chatPosts()).toHaveLength(0);
	});

	it('accepts a caption of exactly 1024 characters', async () => {
		const [[out]] = await send({ messageType: 'image', mediaLink: 'https://cdn.example.com/a.jpg', caption: 'x'.repeat(1024) });
		expect(out.json.accepted).toBe(true);
	});

	it('refuses a document file name over 240 characters', async () => {
		const error = await errorOf(
			send({ messageType: 'document', mediaLink: 'https://cdn.example.com/a.pdf', filename: `${'f'.repeat(237)}.pdf` }),
		);
		expect(error.message).toBe(`Item 0: "File Name" must be at most 240 characters (it has 241) (got "${'f'.repeat(39)}…")`);
		expect(chatPosts()).toHaveLength(0);
	});

	it('refuses an empty text and a malformed phone number', async () => {
		expect((await errorOf(send({ messageType: 'text', text: '  ' }))).message).toBe('Item 0: "Text" must not be empty');
		const error = await errorOf(chatSend(emu.url, { phoneNumber: '0712345678', messageType: 'text', text: 'Hi' }));
		expect(error.message).toBe(
			'Item 0: "Phone Number" must be in E.164 format (+ and country code, no leading zero), e.g. +254712345678 (got "0712345678")',
		);
		expect(chatPosts()).toHaveLength(0);
	});

	it('checks every item before sending any', async () => {
		const error = await errorOf(
			chatSend(
				emu.url,
				{ phoneNumber: OPTED_IN, messageType: 'image', mediaLink: '={{ $json.link }}' },
				[{ link: 'https://cdn.example.com/1.jpg' }, { link: 'https://cdn.example.com/2.jpg' }, { link: 'https://cdn.example.com/3.gif' }],
			),
		);
		expect(error.message).toMatch(/^Item 2: "Media Link" must link to an image file \(JPEG, PNG or WEBP\): .* \(got \.gif\)$/);
		expect(chatPosts()).toHaveLength(0);
	});

	it('does not send an accepted message again when n8n retries the node in the same execution', async () => {
		const setup = {
			parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Once' },
			credentials: apiKeyCredentials(emu.url),
			executionId: 'chat-retry-1',
		};
		const items = [{ phone: OPTED_IN }, { phone: NOT_OPTED_IN }];
		const first = await errorOf(executeNode(setup, items));
		expect(first.message).toBe('1 chat message(s) were not accepted (items 1); 1 were accepted');
		const second = await errorOf(executeNode(setup, items));
		expect(second.message).toBe(first.message);
		expect(emu.control.chatMessages()).toHaveLength(1);
	});
});

describe('Verify Media Link (HEAD request through n8n)', () => {
	let host: Awaited<ReturnType<typeof startMediaHost>>;

	beforeAll(async () => {
		host = await startMediaHost({
			'/ok.png': { contentType: 'image/png', contentLength: 120_000 },
			'/big.jpg': { contentType: 'image/jpeg', contentLength: 6 * 1024 * 1024 },
			'/page.jpg': { contentType: 'text/html; charset=utf-8', contentLength: 900 },
			'/report.pdf': { contentType: 'application/pdf', contentLength: 40 * 1024 * 1024 },
			'/long.mp4': { contentType: 'video/mp4', contentLength: 17 * 1024 * 1024 },
		});
	});
	afterAll(async () => {
		await host.close();
	});
	beforeEach(() => host.heads.splice(0));

	// The test host listens on 127.0.0.1: "Allow Private Media Hosts" lets the check reach it.
	const verify = (messageType: string, path: string) =>
		chatSend(emu.url, {
			phoneNumber: OPTED_IN,
			messageType,
			mediaLink: `${host.url}${path}`,
			options: { verifyMediaLink: true, allowPrivateMediaHosts: true },
		});

	it('sends when the link answers with an allowed type and size', async () => {
		const [[image]] = await verify('image', '/ok.png');
		const [[document]] = await verify('document', '/report.pdf');
		expect([image.json.accepted, document.json.accepted]).toEqual([true, true]);
		expect(host.heads).toEqual([
			{ method: 'HEAD', path: '/ok.png' },
			{ method: 'HEAD', path: '/report.pdf' },
		]);
	});

	it.each([
		['image', '/big.jpg', 'is 6.0 MB; an image may be at most 5.0 MB'],
		['video', '/long.mp4', 'is 17.0 MB; a video may be at most 16.0 MB'],
		['image', '/page.jpg', 'has content type "text/html"; an image must be JPEG, PNG or WEBP (image/jpeg, image/png or image/webp)'],
		['document', '/missing.pdf', 'answered HTTP 404 to a HEAD request; it must be publicly reachable'],
	])('refuses the %s at %s', async (messageType, path, problem) => {
		const error = await errorOf(verify(messageType, path));
		expect(error.message).toBe(`Item 0: "Media Link" ${problem}`);
		expect(host.heads).toEqual([{ method: 'HEAD', path }]);
		expect(chatPosts()).toHaveLength(0);
	});
});

describe('template picker and variable mapper', () => {
	it('lists every approved template across pages of 100, with name, language and category', async () => {
		// 105 approved, 3 rejected by the review, 2 still pending.
		const create = (name: string) => ({ templateName: name, category: name.startsWith('mkt') ? 'MARKETING' : 'UTILITY', language: 'en', componentsSource: 'form', bodyText: 'Hi {{1}}.' });
		const names = Array.from({ length: 105 }, (_, k) => `${k % 2 ? 'mkt' : 'upd'}_${String(k).padStart(3, '0')}`);
		const rejected = ['reject_a', 'reject_b', 'reject_c'];
		const items = [...names, ...rejected].map((name) => create(name));
		await executeNode(
			{
				parameters: {
					resource: 'chatTemplate',
					operation: 'create',
					templateName: '={{ $json.templateName }}',
					category: '={{ $json.category }}',
					language: 'en',
					componentsSource: 'form',
					bodyText: 'Hi {{1}}.',
				},
				credentials: apiKeyCredentials(emu.url),
			},
			items,
		);
		await waitUntil(async () => [...emu.state.templates.values()].every((t) => t.status !== 'PENDING'), 'reviews');
		await templateOp(emu.url, 'create', { templateName: 'pending_1', category: 'UTILITY', language: 'en', componentsSource: 'form', bodyText: 'x' });
		await waitUntil(async () => [...emu.state.templates.values()].find((t) => t.name === 'pending_1' && t.status === 'APPROVED'), 'review');
		emu.control.reviewTemplate('pending_1', 'PENDING');
		emu.control.clearRequests();

		const setup = { parameters: { resource: 'chatMessage', operation: 'send', messageType: 'template' }, credentials: apiKeyCredentials(emu.url) };
		const first = await listSearch(setup, 'searchApprovedChatTemplates');
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe('2');
		const second = await listSearch(setup, 'searchApprovedChatTemplates', undefined, first.paginationToken as string);
		expect(second.results).toHaveLength(5);
		expect(second.paginationToken).toBeUndefined();
		const all = [...first.results, ...second.results];
		expect(all.map((r) => r.value).sort()).toEqual([...names].sort());
		expect(all.find((r) => r.value === 'mkt_001')?.name).toBe('mkt_001 (en, marketing)');
		expect(all.find((r) => r.value === 'upd_000')?.name).toBe('upd_000 (en, utility)');
		const listed = emu.control.requests().filter((r) => r.path.startsWith('/api/chat/templates') && r.method === 'GET');
		expect(listed).toHaveLength(2);

		// A filter reads on until it has matches; the Chat Template picker shows every status.
		const filtered = await listSearch(setup, 'searchApprovedChatTemplates', 'mkt_10');
		expect(filtered.results.map((r) => r.value).sort()).toEqual(['mkt_101', 'mkt_103']);
		const everything = await listSearch({ ...setup, parameters: { resource: 'chatTemplate', operation: 'get' } }, 'searchChatTemplates', 'reject');
		expect(everything.results.map((r) => r.name).sort()).toEqual([
			'reject_a (en, utility, rejected)',
			'reject_b (en, utility, rejected)',
			'reject_c (en, utility, rejected)',
		]);
	});

	it('generates one field per header and body variable of the chosen template', async () => {
		await approvedTemplate('otp_code', [
			{ type: 'HEADER', format: 'TEXT', text: 'Code for {{1}}.' },
			{ type: 'BODY', text: 'Your code is {{1}}. It expires in {{2}} minutes. {{1}}.' },
		]);
		const fields = await resourceMapping(
			{
				parameters: { resource: 'chatMessage', operation: 'send', messageType: 'template', template: locator('otp_code') },
				credentials: apiKeyCredentials(emu.url),
			},
			'getTemplateVariables',
		);
		expect(fields.fields.map((f) => [f.id, f.displayName, f.required, f.type])).toEqual([
			// The template's text around each variable: the user sees what each value is for.
			['header_1', 'Code for {{1}}. (Header)', true, 'string'],
			['body_1', 'Your code is {{1}}. It expires in… (Body)', true, 'string'],
			['body_2', '…It expires in {{2}} minutes. {{1}}. (Body)', true, 'string'],
		]);

		// The fields, saved as the editor saves them, send the message.
		const [[out]] = await chatSend(emu.url, {
			phoneNumber: OPTED_IN,
			messageType: 'template',
			template: locator('otp_code'),
			templateVariables: mapped({ header_1: 'Amina', body_1: '934211', body_2: '10' }, fields.fields),
		});
		expect(out.json.accepted).toBe(true);
		expect(emu.control.chatMessages()[0].content).toMatchObject({
			components: [
				{ type: 'header', parameters: [{ type: 'text', text: 'Amina' }] },
				{ type: 'body', parameters: [{ type: 'text', text: '934211' }, { type: 'text', text: '10' }] },
			],
		});
	});

	it('tells the user when the template has no variables', async () => {
		await approvedTemplate('plain', [{ type: 'BODY', text: 'Thanks for your order' }]);
		const fields = await resourceMapping(
			{
				parameters: { resource: 'chatMessage', operation: 'send', messageType: 'template', template: locator('plain') },
				credentials: apiKeyCredentials(emu.url),
			},
			'getTemplateVariables',
		);
		expect(fields).toEqual({ fields: [], emptyFieldsNotice: 'Template "plain" has no variables' });
	});
});
