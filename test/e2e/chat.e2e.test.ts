/**
 * Chat Message and Chat Template resources in a real n8n: text and media messages, a template
 * created, reviewed by the emulator (PENDING → APPROVED, scaled), listed, sent with variables
 * mapped from the input item through the resource mapper, and deleted.
 */
import { e2e, expectSuccess, jsonOf, out, pairedIndex, runOne, untilStatus, withNode, workflow } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);
const OPTED_IN = '+254712345678';
const NOT_OPTED_IN = '+254712000801';

const one = (name: string, nodeName: string, items: Array<Record<string, unknown>>) => runOne(n8n, name, nodeName, items);

describe('Chat Message → Send', () => {
	test('text to an opted-in number; opt-in missing → error item with the service code', async () => {
		const text = `Your order ${run} is ready`;
		const output = await one('chat-message-send', 'Send Chat Message', [
			{ phone: OPTED_IN, text },
			{ phone: NOT_OPTED_IN, text },
		]);
		expect(output.map(pairedIndex)).toEqual([0, 1]);
		const [sent, refused] = jsonOf(output);
		expect(sent).toMatchObject({ messageId: expect.any(String) });
		expect(JSON.stringify(refused)).toMatch(/CHAT_OPT_IN_REQUIRED/);
		const recorded = (await emulator.chatMessages({ phoneNumber: OPTED_IN })).filter((m) => JSON.stringify(m.content).includes(text));
		expect(recorded).toHaveLength(1);
		expect(recorded[0]).toMatchObject({ type: 'text', messageId: sent.messageId });
		expect(await emulator.chatMessages({ phoneNumber: NOT_OPTED_IN })).toHaveLength(0);
	});

	test('image, document and video links; a non-HTTPS link is refused before sending', async () => {
		// "Message Type" takes no expression (as in the editor): one run per type.
		const send = async (type: string, items: Array<Record<string, unknown>>) => {
			const wf = withNode(workflow('chat-message-send-media'), 'Send Chat Message', { parameters: { messageType: type } });
			const { execution } = await n8n.run(wf, { items });
			return jsonOf(out(expectSuccess(execution), 'Send Chat Message'));
		};
		const before = (await emulator.chatMessages({ phoneNumber: OPTED_IN })).length;
		const images = await send('image', [
			{ phone: OPTED_IN, link: 'https://cdn.example.com/receipt.png', caption: 'Your receipt' },
			{ phone: OPTED_IN, link: 'http://cdn.example.com/insecure.png' },
			{ phone: OPTED_IN, link: 'https://cdn.example.com/not-an-image.pdf' },
		]);
		const [document] = await send('document', [{ phone: OPTED_IN, link: 'https://cdn.example.com/invoice-1042.pdf', filename: 'invoice-1042.pdf' }]);
		const [video] = await send('video', [{ phone: OPTED_IN, link: 'https://cdn.example.com/howto.mp4' }]);
		expect([images[0], document, video].map((o) => (typeof o.messageId === 'string' ? 'ok' : JSON.stringify(o)))).toEqual(['ok', 'ok', 'ok']);
		expect(JSON.stringify(images[1])).toMatch(/Media Link/);
		expect(JSON.stringify(images[2])).toMatch(/Media Link/);
		const recorded = (await emulator.chatMessages({ phoneNumber: OPTED_IN })).slice(before);
		expect(recorded.map((m) => m.type)).toEqual(['image', 'document', 'video']);
		expect(JSON.stringify(recorded[0].content)).toContain('Your receipt');
		expect(JSON.stringify(recorded[1].content)).toContain('invoice-1042.pdf');
	});
});

describe('Chat Template', () => {
	test('Create → PENDING → APPROVED (emulator review) → Get, Get Many → Send with mapped variables → Delete', async () => {
		const name = `order_ready_${run}`;
		const [created] = jsonOf(
			await one('chat-template-create', 'Create Template', [{ name, body: 'Hello {{1}}, your order {{2}} is ready for pickup', footer: 'SVC Demo' }]),
		);
		expect(created).toMatchObject({ name, status: 'PENDING', category: 'UTILITY', language: 'en' });

		const getTemplate = async () => jsonOf(await one('chat-template-get', 'Get Template', [{ template: name }]))[0];
		const approved = await untilStatus('the template to be approved', 'APPROVED', getTemplate, 20_000, 300);
		expect(approved.approvedAt).toEqual(expect.any(String));

		const listed = jsonOf(await one('chat-template-get-many', 'Get Templates', [{ status: 'APPROVED' }]));
		expect(listed.map((t) => t.name)).toContain(name);
		expect(listed.every((t) => t.status === 'APPROVED')).toBe(true);

		const output = jsonOf(
			await one('chat-message-send-template', 'Send Chat Message', [
				{ phone: OPTED_IN, template: name, name: 'Amina', order: `T-${run}` },
				{ phone: OPTED_IN, template: name, name: '', order: `T-${run}-2` },
			]),
		);
		expect(output[0]).toMatchObject({ messageId: expect.any(String) });
		expect(JSON.stringify(output[1])).toMatch(/variable|no value/i);
		const recorded = (await emulator.chatMessages({ phoneNumber: OPTED_IN })).filter((m) => m.type === 'template' && JSON.stringify(m.content).includes(`T-${run}`));
		expect(recorded).toHaveLength(1);
		expect(JSON.stringify(recorded[0].content)).toContain('Amina');
		expect(recorded[0].content).toMatchObject({ name, language: { code: 'en' } });

		const [deleted] = jsonOf(await one('chat-template-delete', 'Delete Template', [{ template: name }]));
		expect(deleted).toMatchObject({ name, deleted: true });
		const [gone] = jsonOf(await one('chat-template-get', 'Get Template', [{ template: name }]));
		expect(JSON.stringify(gone)).toMatch(/NOT_FOUND|not found|does not exist/i);
	});

	test('a rejected template: Get shows the reason, Send refuses it before any request', async () => {
		const name = `reject_me_${run}`;
		await one('chat-template-create', 'Create Template', [{ name, body: 'Buy now {{1}}.' }]);
		const getTemplate = async () => jsonOf(await one('chat-template-get', 'Get Template', [{ template: name }]))[0];
		const rejected = await untilStatus('the template to be rejected', 'REJECTED', getTemplate, 20_000, 300);
		expect(rejected.rejectedReason).toEqual(expect.any(String));
		await emulator.clearRequests();
		const [refused] = jsonOf(await one('chat-message-send-template', 'Send Chat Message', [{ phone: OPTED_IN, template: name, name: 'A', order: 'B' }]));
		expect(JSON.stringify(refused)).toMatch(/REJECTED/);
		expect((await emulator.requests()).filter((r) => r.method === 'POST' && r.path === '/api/chat/messages')).toHaveLength(0);
	});
});
