/**
 * Chat Template → Create, Get, Get Many, Delete against the emulator over real HTTP, inside n8n-core's
 * execution context: every structure rule is refused before a request is made, and a template goes
 * PENDING → APPROVED through the emulator's time scale and is then sent with mapped variables.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { chatSend, errorOf, formTemplate, jsonTemplate, locator, mapped, OPTED_IN, OPTED_IN_NG, templateOp, waitUntil } from './helpers';

const emu = useEmulator({ timeScale: 0.1 });

// Review takes 2 s of emulator time: 200 ms here, long enough to see PENDING first.

const templatePosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/templates');
const templateGets = () => emu.control.requests().filter((r) => r.method === 'GET' && r.path === '/api/chat/templates');
const stored = (name: string) => [...emu.state.templates.values()].find((t) => t.name === name);

/** Creates many templates in one node run (one per item), through the plan's rate limiter. */
async function createMany(templates: Array<{ name: string; category?: string; language?: string }>) {
	const out = await executeNode(
		{
			parameters: {
				resource: 'chatTemplate',
				operation: 'create',
				templateName: '={{ $json.name }}',
				category: '={{ $json.category }}',
				language: '={{ $json.language }}',
				componentsSource: 'form',
				bodyText: 'Hello {{1}}.',
			},
			credentials: apiKeyCredentials(emu.url),
		},
		templates.map((t) => ({ category: 'UTILITY', language: 'en', ...t })),
	);
	expect(out[0]).toHaveLength(templates.length);
}

describe('Create', () => {
	it('builds every component from the form and returns the PENDING template', async () => {
		const [[out]] = await templateOp(
			emu.url,
			'create',
			formTemplate('order_update', {
				headerFormat: 'TEXT',
				headerText: 'Order {{1}}',
				bodyText: 'Hi {{1}}, your order {{2}} has shipped.',
				footerText: 'Reply STOP to opt out',
				buttons: {
					button: [
						{ type: 'QUICK_REPLY', text: 'Thanks' },
						{ type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' },
						{ type: 'PHONE_NUMBER', text: 'Call us', phoneNumber: '+254700000001' },
					],
				},
			}),
		);
		expect(out.json).toEqual({
			id: expect.stringMatching(/^tpl_/),
			name: 'order_update',
			status: 'PENDING',
			category: 'UTILITY',
			language: 'en',
			createdAt: expect.any(String),
		});
		expect(stored('order_update')?.components).toEqual([
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
			{ type: 'FOOTER', text: 'Reply STOP to opt out' },
			{
				type: 'BUTTONS',
				buttons: [
					{ type: 'QUICK_REPLY', text: 'Thanks' },
					{ type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' },
					{ type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+254700000001' },
				],
			},
		]);
	});

	it.each(['IMAGE', 'DOCUMENT', 'VIDEO'])('creates a template with a %s header', async (format) => {
		const name = `media_${format.toLowerCase()}`;
		const [[out]] = await templateOp(emu.url, 'create', formTemplate(name, { headerFormat: format, bodyText: 'Your file is attached' }));
		expect(out.json).toMatchObject({ name, status: 'PENDING' });
		expect(stored(name)?.components[0]).toEqual({ type: 'HEADER', format });
	});

	it('takes the components as JSON, and writes the language code as the platform does', async () => {
		const [[out]] = await templateOp(
			emu.url,
			'create',
			jsonTemplate(
				'login_code',
				[
					{ type: 'BODY', text: 'Hi {{1}} is your verification code.' },
					{ type: 'BUTTONS', buttons: [{ type: 'COPY_CODE' }, { type: 'OTP', text: 'Autofill' }] },
				],
				'AUTHENTICATION',
				'en-us',
			),
		);
		expect(out.json).toMatchObject({ name: 'login_code', category: 'AUTHENTICATION', language: 'en_US', status: 'PENDING' });
		expect(stored('login_code')?.components).toEqual([
			{ type: 'BODY', text: 'Hi {{1}} is your verification code.' },
			{ type: 'BUTTONS', buttons: [{ type: 'COPY_CODE' }, { type: 'OTP', text: 'Autofill' }] },
		]);
	});

	it('409 TEMPLATE_ALREADY_EXISTS says names are unique', async () => {
		await templateOp(emu.url, 'create', formTemplate('dup'));
		const error = await errorOf(templateOp(emu.url, 'create', formTemplate('dup')));
		expect(error.message).toBe("POST /api/chat/templates failed: TEMPLATE_ALREADY_EXISTS – A template named 'dup' already exists");
		expect(error.description).toBe('Template names are unique. Choose another name, or delete the old template first.');
	});

	it('checks every item before creating any', async () => {
		const error = await errorOf(
			executeNode(
				{
					parameters: { ...formTemplate('={{ $json.name }}'), resource: 'chatTemplate', operation: 'create', bodyText: '={{ $json.body }}' },
					credentials: apiKeyCredentials(emu.url),
				},
				[
					{ name: 'first', body: 'fine' },
					{ name: 'second', body: 'Hi {{2}}.' },
				],
			),
		);
		expect(error.message).toBe(
			'Item 1: Template "second" breaks 1 structure rule: BODY: variables must be numbered from {{1}} without gaps (missing {{1}})',
		);
		expect(templatePosts()).toHaveLength(0);
	});
});

describe('structure rules: refused before sending, by component and rule', () => {
	const vars = (n: number) => `Hi ${Array.from({ length: n }, (_, k) => `{{${k + 1}}}`).join(' ')}.`;
	const buttons = (...list: IDataObject[]) => ({ buttons: { button: list } });
	const qr = { type: 'QUICK_REPLY', text: 'Yes' };

	it.each<[string, IDataObject, string]>([
		['BODY required', jsonTemplate('t', [{ type: 'FOOTER', text: 'f' }]), 'BODY: every template needs a BODY with text'],
		['BODY not empty', formTemplate('t', { bodyText: '   ' }), 'BODY: every template needs a BODY with text'],
		['BODY ≤ 1024 characters', formTemplate('t', { bodyText: 'é'.repeat(1025) }), 'BODY: text must be at most 1024 characters (it has 1025)'],
		['BODY ≤ 25 variables', formTemplate('t', { bodyText: vars(26) }), 'BODY: at most 25 variables (it has 26)'],
		['BODY variables from {{1}}', formTemplate('t', { bodyText: 'Hi {{2}}.' }), 'BODY: variables must be numbered from {{1}} without gaps (missing {{1}})'],
		['BODY variables without gaps', formTemplate('t', { bodyText: 'Hi {{1}} {{2}} {{5}}.' }), 'BODY: variables must be numbered from {{1}} without gaps (missing {{3}}, {{4}})'],
		['BODY variables numbered', formTemplate('t', { bodyText: 'Hi {{name}}.' }), 'BODY: variables must be numbered like {{1}}, {{2}} (found {{name}})'],
		['HEADER format', jsonTemplate('t', [{ type: 'HEADER', format: 'AUDIO' }, { type: 'BODY', text: 'b' }]), 'HEADER: format must be TEXT, IMAGE, DOCUMENT or VIDEO (got "AUDIO")'],
		['HEADER text required', formTemplate('t', { headerFormat: 'TEXT', headerText: '' }), 'HEADER: a TEXT header needs text'],
		['HEADER text ≤ 60 characters', formTemplate('t', { headerFormat: 'TEXT', headerText: 'h'.repeat(61) }), 'HEADER: text must be at most 60 characters (it has 61)'],
		['HEADER variables without gaps', formTemplate('t', { headerFormat: 'TEXT', headerText: 'Order {{2}}' }), 'HEADER: variables must be numbered from {{1}} without gaps (missing {{1}})'],
		['FOOTER ≤ 60 characters', formTemplate('t', { footerText: 'f'.repeat(61) }), 'FOOTER: text must be at most 60 characters (it has 61)'],
		['FOOTER text required', jsonTemplate('t', [{ type: 'BODY', text: 'b' }, { type: 'FOOTER' }]), 'FOOTER: a FOOTER needs text'],
		['QUICK_REPLY ≤ 3', formTemplate('t', buttons(qr, qr, qr, qr)), 'BUTTONS: at most 3 QUICK_REPLY buttons per template (found 4)'],
		[
			'URL ≤ 2',
			formTemplate('t', buttons(...[1, 2, 3].map((n) => ({ type: 'URL', text: `L${n}`, url: `https://x.example/${n}` })))),
			'BUTTONS: at most 2 URL buttons per template (found 3)',
		],
		[
			'PHONE_NUMBER ≤ 1',
			formTemplate('t', buttons(...[1, 2].map(() => ({ type: 'PHONE_NUMBER', text: 'Call', phoneNumber: '+254700000001' })))),
			'BUTTONS: at most 1 PHONE_NUMBER button per template (found 2)',
		],
		[
			'COPY_CODE ≤ 1',
			{ ...formTemplate('t', buttons({ type: 'COPY_CODE' }, { type: 'COPY_CODE' })), category: 'AUTHENTICATION' },
			'BUTTONS: at most 1 COPY_CODE button per template (found 2)',
		],
		[
			'OTP ≤ 1',
			{ ...formTemplate('t', buttons({ type: 'OTP', text: 'a' }, { type: 'OTP', text: 'b' })), category: 'AUTHENTICATION' },
			'BUTTONS: at most 1 OTP button per template (found 2)',
		],
		[
			'COPY_CODE only in AUTHENTICATION',
			{ ...formTemplate('t', buttons({ type: 'COPY_CODE' })), category: 'MARKETING' },
			'BUTTONS: COPY_CODE buttons are allowed only in AUTHENTICATION templates (this one is MARKETING)',
		],
		[
			'OTP only in AUTHENTICATION',
			formTemplate('t', buttons({ type: 'OTP', text: 'Code' })),
			'BUTTONS: OTP buttons are allowed only in AUTHENTICATION templates (this one is UTILITY)',
		],
		['button type', jsonTemplate('t', [{ type: 'BODY', text: 'b' }, { type: 'BUTTONS', buttons: [{ type: 'FLOW', text: 'x' }] }]), 'BUTTONS: button 1: type must be QUICK_REPLY, URL, PHONE_NUMBER, COPY_CODE, OTP (got "FLOW")'],
		['button text', formTemplate('t', buttons({ type: 'QUICK_REPLY', text: '' })), 'BUTTONS: button 1 (QUICK_REPLY): needs a text'],
		['URL button url', formTemplate('t', buttons({ type: 'URL', text: 'Go', url: 'shop.example.com' })), 'BUTTONS: button 1 (URL): needs a url starting with https:// (or http://)'],
		['PHONE_NUMBER button number', formTemplate('t', buttons({ type: 'PHONE_NUMBER', text: 'Call', phoneNumber: '0700 000 001' })), 'BUTTONS: button 1 (PHONE_NUMBER): needs a phone_number in E.164 format, e.g. +254712345678'],
		['BUTTONS not empty', jsonTemplate('t', [{ type: 'BODY', text: 'b' }, { type: 'BUTTONS', buttons: [] }]), 'BUTTONS: needs a list of at least one button'],
		['one component per type', jsonTemplate('t', [{ type: 'BODY', text: 'a' }, { type: 'BODY', text: 'b' }]), 'BODY: a template has at most one BODY component (found 2)'],
		['component type', jsonTemplate('t', [{ type: 'BODY', text: 'a' }, { type: 'CAROUSEL' }]), 'component 2: type must be HEADER, BODY, FOOTER or BUTTONS (got "CAROUSEL")'],
		['components list', jsonTemplate('t', { type: 'BODY', text: 'a' }), 'TEMPLATE: components must be a list (JSON array)'],
	])('%s', async (_rule, parameters, violation) => {
		const error = await errorOf(templateOp(emu.url, 'create', parameters));
		expect(error.message).toBe(`Item 0: Template "t" breaks 1 structure rule: ${violation}`);
		expect(templatePosts()).toHaveLength(0);
		expect(emu.state.templates.size).toBe(0);
	});

	it('reports every violation of a template at once', async () => {
		const error = await errorOf(
			templateOp(emu.url, 'create', {
				...formTemplate('t', { bodyText: 'Hi {{1}} {{3}}.', footerText: 'f'.repeat(70), ...buttons({ type: 'OTP', text: 'x' }) }),
				category: 'MARKETING',
			}),
		);
		expect(error.message).toBe(
			'Item 0: Template "t" breaks 3 structure rules: BODY: variables must be numbered from {{1}} without gaps (missing {{2}}); ' +
				'FOOTER: text must be at most 60 characters (it has 70); BUTTONS: OTP buttons are allowed only in AUTHENTICATION templates (this one is MARKETING)',
		);
		expect(templatePosts()).toHaveLength(0);
	});

	it('refuses malformed JSON, an empty name and an unknown language code', async () => {
		const json = await errorOf(templateOp(emu.url, 'create', { ...jsonTemplate('t', []), componentsJson: '[{ "type": "BODY", ' }));
		expect(json.message).toMatch(/^Item 0: "Components \(JSON\)" is not valid JSON: /);
		const name = await errorOf(templateOp(emu.url, 'create', formTemplate('  ')));
		expect(name.message).toBe('Item 0: "Name" must not be empty');
		const language = await errorOf(templateOp(emu.url, 'create', { ...formTemplate('t'), language: 'English' }));
		expect(language.message).toBe(
			'Item 0: "Language" must be a language code as the chat platform writes it, e.g. en, sw, fr or en_US (en-us is accepted and written as en_US)',
		);
		expect(templatePosts()).toHaveLength(0);
	});
});

describe('review lifecycle', () => {
	it('goes PENDING → APPROVED through the review, and is then sent with variables mapped from the items', async () => {
		await templateOp(
			emu.url,
			'create',
			formTemplate('delivery_eta', { headerFormat: 'TEXT', headerText: 'Delivery {{1}}', bodyText: 'Hi {{1}}, your parcel arrives {{2}}.' }),
		);
		const get = () => templateOp(emu.url, 'get', { template: locator('delivery_eta') });
		const [[pending]] = await get();
		expect(pending.json).toMatchObject({ name: 'delivery_eta', status: 'PENDING', rejectedReason: null, approvedAt: null });

		const sendParameters = {
			phoneNumber: '={{ $json.phone }}',
			messageType: 'template',
			template: locator('delivery_eta'),
			templateVariables: mapped({ header_1: '={{ $json.ref }}', body_1: '={{ $json.first }}', body_2: '={{ $json.when }}' }),
		};
		const items = [
			{ phone: OPTED_IN, ref: 'D-17', first: 'Wanjiru', when: 'tomorrow' },
			{ phone: OPTED_IN_NG, ref: 'D-18', first: 'Tunde', when: 'on Friday' },
		];
		const early = await errorOf(chatSend(emu.url, sendParameters, items));
		expect(early.message).toBe('Item 0: Template "delivery_eta" is PENDING: only APPROVED templates can be sent');
		expect(emu.control.chatMessages()).toHaveLength(0);

		const approved = await waitUntil(async () => {
			const [[out]] = await get();
			return out.json.status === 'APPROVED' ? out.json : undefined;
		}, 'approval');
		expect(approved).toMatchObject({ status: 'APPROVED', rejectedReason: null, approvedAt: expect.any(String) });
		expect(Date.parse(approved.approvedAt as string)).toBeGreaterThanOrEqual(Date.parse(pending.json.createdAt as string));

		const out = await chatSend(emu.url, sendParameters, items);
		expect(out[0].map((o) => o.json.accepted)).toEqual([true, true]);
		expect(emu.control.chatMessages().map((m) => [m.phoneNumber, m.content])).toEqual([
			[
				OPTED_IN,
				{
					name: 'delivery_eta',
					language: { code: 'en' },
					components: [
						{ type: 'header', parameters: [{ type: 'text', text: 'D-17' }] },
						{ type: 'body', parameters: [{ type: 'text', text: 'Wanjiru' }, { type: 'text', text: 'tomorrow' }] },
					],
				},
			],
			[
				OPTED_IN_NG,
				{
					name: 'delivery_eta',
					language: { code: 'en' },
					components: [
						{ type: 'header', parameters: [{ type: 'text', text: 'D-18' }] },
						{ type: 'body', parameters: [{ type: 'text', text: 'Tunde' }, { type: 'text', text: 'on Friday' }] },
					],
				},
			],
		]);
	});

	it('shows the reason of a rejected template', async () => {
		await templateOp(emu.url, 'create', formTemplate('promo_reject_me', { category: 'MARKETING' }));
		const rejected = await waitUntil(async () => {
			const [[out]] = await templateOp(emu.url, 'get', { template: locator('promo_reject_me', 'name') });
			return out.json.status !== 'PENDING' ? out.json : undefined;
		}, 'review');
		expect(rejected).toMatchObject({
			status: 'REJECTED',
			rejectedReason: 'The template does not comply with the platform messaging policy',
			approvedAt: null,
		});
	});

	it('Get of an unknown template says so', async () => {
		const error = await errorOf(templateOp(emu.url, 'get', { template: locator('nope', 'name') }));
		expect(error.message).toBe("GET /api/chat/templates/nope failed: NOT_FOUND – Template 'nope' not found");
		expect(error.description).toBe('Nothing with this identifier exists for this account.');
	});
});

describe('Get Many', () => {
	const getMany = (parameters: IDataObject) => templateOp(emu.url, 'getAll', parameters);

	it('Return All reads every page and no more', async () => {
		await createMany(Array.from({ length: 130 }, (_, k) => ({ name: `t_${k}` })));
		emu.control.clearRequests();
		const [all] = await getMany({ returnAll: true });
		expect(all).toHaveLength(130);
		expect(new Set(all.map((o) => o.json.name)).size).toBe(130);
		expect(templateGets()).toHaveLength(2);
		expect(all.every((o) => o.pairedItem && (o.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('a Limit reads only the pages it needs', async () => {
		await createMany(Array.from({ length: 130 }, (_, k) => ({ name: `t_${k}` })));
		emu.control.clearRequests();
		const [thirty] = await getMany({ returnAll: false, limit: 30 });
		expect(thirty).toHaveLength(30);
		expect(templateGets()).toHaveLength(1);

		emu.control.clearRequests();
		const [hundred] = await getMany({ returnAll: false, limit: 100 });
		expect(hundred).toHaveLength(100);
		expect(templateGets()).toHaveLength(1);

		emu.control.clearRequests();
		const [more] = await getMany({ returnAll: false, limit: 500 });
		expect(more).toHaveLength(130);
		expect(templateGets()).toHaveLength(2);
	});

	it('filters by status, category and language', async () => {
		await createMany([
			{ name: 'a_en', category: 'MARKETING', language: 'en' },
			{ name: 'b_sw', category: 'MARKETING', language: 'sw' },
			{ name: 'c_en', category: 'UTILITY', language: 'en' },
			{ name: 'd_reject_sw', category: 'MARKETING', language: 'sw' },
		]);
		await waitUntil(async () => [...emu.state.templates.values()].every((t) => t.status !== 'PENDING'), 'reviews');
		const names = async (filters: IDataObject) => (await getMany({ returnAll: true, filters }))[0].map((o) => o.json.name).sort();
		expect(await names({ category: 'MARKETING' })).toEqual(['a_en', 'b_sw', 'd_reject_sw']);
		expect(await names({ language: 'SW' })).toEqual(['b_sw', 'd_reject_sw']);
		expect(await names({ status: 'REJECTED' })).toEqual(['d_reject_sw']);
		expect(await names({ status: 'APPROVED', category: 'MARKETING', language: 'sw' })).toEqual(['b_sw']);
		expect(await names({ category: 'SERVICE' })).toEqual([]);
	});
});

describe('Delete', () => {
	it('returns { deleted: true, name } and the template is gone', async () => {
		await templateOp(emu.url, 'create', formTemplate('old_promo'));
		const [[out]] = await templateOp(emu.url, 'delete', { template: locator('old_promo') });
		expect(out.json).toEqual({ deleted: true, name: 'old_promo' });
		expect(stored('old_promo')).toBeUndefined();
		const again = await errorOf(templateOp(emu.url, 'delete', { template: locator('old_promo', 'name') }));
		expect(again.message).toBe("DELETE /api/chat/templates/old_promo failed: NOT_FOUND – Template 'old_promo' not found");
	});

	it('deletes one template per item, reporting failures per item with Continue On Fail', async () => {
		await createMany([{ name: 'x1' }, { name: 'x2' }]);
		const out = await executeNode(
			{
				parameters: { resource: 'chatTemplate', operation: 'delete', template: locator('={{ $json.name }}', 'name') },
				credentials: apiKeyCredentials(emu.url),
				settings: { onError: 'continueRegularOutput' },
			},
			[{ name: 'x1' }, { name: 'missing' }, { name: 'x2' }],
		);
		expect(out[0].map((o) => o.json)).toEqual([
			{ deleted: true, name: 'x1' },
			expect.objectContaining({ error: "DELETE /api/chat/templates/missing failed: NOT_FOUND – Template 'missing' not found" }),
			{ deleted: true, name: 'x2' },
		]);
		expect(emu.state.templates.size).toBe(0);
	});
});
