/**
 * Chat Message → Send: the template picker (list search) and the variable mapper (resource mapper)
 * the editor shows, and sending through them.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, listSearch, resourceMapping } from '../helpers/n8n';
import { approvedTemplate, chatSend, locator, mapped, OPTED_IN, templateOp, waitUntil } from './helpers';

const emu = useEmulator();

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
		await approvedTemplate(emu, 'otp_code', [
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
			['header_1', 'Header {{1}}: Code for ___.', true, 'string'],
			['body_1', 'Body {{1}}: Your code is ___. It expires in…', true, 'string'],
			['body_2', 'Body {{2}}: …It expires in ___ minutes. {{1}}.', true, 'string'],
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
		await approvedTemplate(emu, 'plain', [{ type: 'BODY', text: 'Thanks for your order' }]);
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
