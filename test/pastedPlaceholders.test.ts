import type { IDataObject } from 'n8n-workflow';

import { formTemplate, jsonTemplate, storedTemplate, templateOp } from './chat/helpers';
import { byId, createCampaign, createParameters, errorOf, requests, run } from './campaign/helpers';
import { useEmulator } from './helpers/emulatorFixture';
import { apiKeyCredentials } from './helpers/credentials';
import { executeNode } from './helpers/n8n';
import { sendBulkParameters } from './sms/fixtures';

/**
 * Text pasted into the editor with {{ }} becomes an n8n expression, and n8n fills the service's
 * placeholders itself before the node sees the text ("Hello {{name}}" → "Hello "). Such a field is
 * refused before any request, naming the item and the placeholders; the escape that n8n's engine
 * really parses ({{ '{{' }}name}}) and a fixed field go out unchanged, and the output shows each recipient's filled text.
 */
const emu = useEmulator();
const PHONE = '+254712345678';
const apiPosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/api/'));

const bulk = (message: string, items: IDataObject[] = [{ phone: PHONE, name: 'Amina', order: 'A-12' }]) =>
	executeNode({ parameters: sendBulkParameters({ message }), credentials: apiKeyCredentials(emu.url) }, items);

describe('Send Bulk: Message', () => {
	it('pasted as an expression: every item refused, 0 sent at the emulator', async () => {
		const items = [
			{ phone: PHONE, name: 'Amina', order: 'A-12' },
			{ phone: '+254712345679', name: 'Baraka', order: 'A-13' },
		];
		const error = await errorOf(bulk('=Hello {{name}}, your order {{order}} has shipped', items));
		expect(error.message).toBe('Item 0: "Message" is an expression, so n8n would evaluate {{name}}, {{order}} itself and the service would never get these placeholders');
		expect(error.description).toContain("{{ '{{' }}name}}");
		expect(error.description).toContain('Fixed');
		expect(emu.control.messages()).toHaveLength(0);
		expect(apiPosts()).toEqual([]);
	});

	it('with Continue On Fail: one error item per input item, nothing sent', async () => {
		const [out] = await executeNode(
			{ parameters: sendBulkParameters({ message: '=Hi {{ name }}' }), credentials: apiKeyCredentials(emu.url), settings: { onError: 'continueRegularOutput' } },
			[{ phone: PHONE, name: 'A' }, { phone: '+254712345679', name: 'B' }],
		);
		expect(out.map((o) => [o.pairedItem, o.json.accepted, String(o.json.errorMessage)])).toEqual([
			[{ item: 0 }, false, expect.stringContaining('Item 0: "Message" is an expression')],
			[{ item: 1 }, false, expect.stringContaining('Item 1: "Message" is an expression')],
		]);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('n8n code in an expression is fine; the escape keeps the placeholder; the output shows the filled text', async () => {
		const [out] = await bulk("={{ $json.greeting }} {{ '{{' }}name}}, your order {{ '{{' }}order}} has shipped", [{ phone: PHONE, greeting: 'Hello', name: 'Amina', order: 'A-12' }]);
		expect(out[0].json).toMatchObject({ accepted: true, message: 'Hello Amina, your order A-12 has shipped' });
		expect(emu.control.messages().map((m) => m.message)).toEqual(['Hello Amina, your order A-12 has shipped']);
	});

	it('a fixed field goes out as typed; the service fills it per recipient, as the output shows', async () => {
		const [out] = await bulk('Hello {{name}}, your order {{order}} has shipped');
		expect(out[0].json.message).toBe('Hello Amina, your order A-12 has shipped');
		expect(emu.control.messages().map((m) => m.message)).toEqual(['Hello Amina, your order A-12 has shipped']);
	});
});

describe('Chat Template → Create', () => {
	it('a pasted body {{1}} is refused before the request: 0 templates created', async () => {
		const error = await errorOf(templateOp(emu.url, 'create', formTemplate('order_update', { bodyText: '=Hi {{1}}, your order {{2}} has shipped.' })));
		expect(error.message).toBe('Item 0: "Body" is an expression, so n8n would evaluate {{1}}, {{2}} itself and the service would never get these placeholders');
		expect(storedTemplate(emu, 'order_update')).toBeUndefined();
		expect(apiPosts()).toEqual([]);
	});

	it.each([
		['Header Text', { headerFormat: 'TEXT', headerText: '=Order {{1}}' }],
		['Footer', { footerText: '=Code {{1}}' }],
		['Buttons', { buttons: { button: [{ type: 'URL', text: 'Track', url: '=https://example.com/orders/{{1}}' }] } }],
	])('%s pasted as an expression is refused', async (label, parts) => {
		const error = await errorOf(templateOp(emu.url, 'create', formTemplate('order_update', parts)));
		expect(error.message).toMatch(new RegExp(`^Item 0: "${label}" is an expression, so n8n would evaluate \\{\\{1\\}\\}`));
		expect(apiPosts()).toEqual([]);
	});

	it('Components (JSON) pasted as an expression is refused', async () => {
		const parameters = jsonTemplate('order_update', [{ type: 'BODY', text: 'Hi {{1}}, thanks.' }]);
		const error = await errorOf(templateOp(emu.url, 'create', { ...parameters, componentsJson: `=${String(parameters.componentsJson)}` }));
		expect(error.message).toContain('"Components (JSON)" is an expression, so n8n would evaluate {{1}}');
		expect(apiPosts()).toEqual([]);
	});

	it('the output echoes the components created', async () => {
		const [out] = await templateOp(emu.url, 'create', formTemplate('order_update', { bodyText: 'Hi {{1}}, your order {{2}} has shipped.' }));
		expect(out[0].json.components).toEqual([{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' }]);
		expect(storedTemplate(emu, 'order_update')?.components).toEqual(out[0].json.components);
	});
});

describe('Campaign: Message', () => {
	it('Create: a pasted {{name}} is refused, 0 campaigns created', async () => {
		const error = await errorOf(run(emu.url, createParameters({ message: '=Hello {{name}}, 20% off' })));
		expect(error.message).toMatch(/^Item 0: "Message" is an expression, so n8n would evaluate \{\{name\}\}/);
		expect(requests(emu, 'POST', '/api/campaigns')).toEqual([]);
	});

	it('Update: a pasted {{name}} is refused, nothing patched', async () => {
		const campaign = await createCampaign(emu.url);
		const error = await errorOf(run(emu.url, { operation: 'update', campaignId: byId(campaign.id), senderIdText: '', updateFields: { message: '=Hi {{name}}' } }));
		expect(error.message).toMatch(/^Item 0: "Message" is an expression, so n8n would evaluate \{\{name\}\}/);
		expect(requests(emu, 'PATCH', '/api/campaigns/*')).toEqual([]);
	});
});
