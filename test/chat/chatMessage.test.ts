/**
 * Chat Message → Send against the emulator over real HTTP, inside n8n-core's execution context:
 * every message type, and the chat error codes of the service as the user sees them.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_KEYS } from '../emulator/index';
import { executeNode } from '../helpers/n8n';
import { approvedTemplate, chatSend, errorOf, locator, mapped, NOT_OPTED_IN, OPTED_IN, OPTED_IN_2, OPTED_IN_NG, startErrorService } from './helpers';

const emu = useEmulator();

const credits = () => emu.state.accounts.get('acc_demo')!.credits;

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

	it('version 2 (Send Template): the output has the text sent and names the values, by field id (version 1 outputs as before)', async () => {
		await approvedTemplate(emu, 'order_shipped', [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}.' },
			{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ships today. Thanks {{1}}!' },
			{ type: 'FOOTER', text: 'Reply STOP to opt out' },
		]);
		const parameters = {
			resource: 'chatMessage',
			operation: 'sendTemplate',
			phoneNumber: OPTED_IN,
			template: locator('order_shipped'),
			templateVariables: mapped({ header_1: 'A-1', body_1: '={{ $json.name }}', body_2: 'A-1' }),
			options: {},
		};
		const [[item]] = await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), typeVersion: 2 }, [{ name: 'Amina' }]);
		expect(item.json).toMatchObject({
			accepted: true,
			templateName: 'order_shipped',
			text: 'Order A-1.\nHi Amina, order A-1 ships today. Thanks Amina!\nReply STOP to opt out',
			templateVariables: { header_1: 'A-1', body_1: 'Amina', body_2: 'A-1' },
		});

		const v1 = { ...parameters, operation: 'send', messageType: 'template' };
		const [[old]] = await executeNode({ parameters: v1, credentials: apiKeyCredentials(emu.url), typeVersion: 1 }, [{ name: 'Amina' }]);
		expect(old.json).toMatchObject({ accepted: true, templateName: 'order_shipped' });
		expect(old.json).not.toHaveProperty('text');
		expect(old.json).not.toHaveProperty('templateVariables');
	});

	it('sends an approved template with its header and body variables mapped from the items', async () => {
		await approvedTemplate(emu, 'order_shipped', [
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
		await approvedTemplate(emu, 'welcome_sw', [{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: 'Karibu!' }], 'sw');
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
