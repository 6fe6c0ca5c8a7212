/**
 * Chat Template → Create against the emulator over real HTTP, inside n8n-core's execution context:
 * every structure rule is refused before a request is made.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { errorOf, formTemplate, jsonTemplate, storedTemplate, templateOp } from './helpers';

// Review takes 2 s of emulator time: 200 ms here, long enough to see PENDING first.
const emu = useEmulator({ timeScale: 0.1 });

const templatePosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/templates');

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
			// what was created, as sent
			components: storedTemplate(emu, 'order_update')?.components,
		});
		expect(storedTemplate(emu, 'order_update')?.components).toEqual([
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
		expect(storedTemplate(emu, name)?.components[0]).toEqual({ type: 'HEADER', format });
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
		expect(storedTemplate(emu, 'login_code')?.components).toEqual([
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

describe('component types as typed', () => {
	it('lower-case component, format and button types are sent upper-cased (the service refuses them otherwise)', async () => {
		const components = [
			{ type: 'header', format: 'text', text: 'Order {{1}}' },
			{ type: 'Body', text: 'Hi {{1}}, your order {{2}} has shipped.' },
			{ type: 'buttons', buttons: [{ type: 'quick_reply', text: 'Thanks' }] },
		];
		const [[out]] = await templateOp(emu.url, 'create', jsonTemplate('order_case', components));
		const sent = [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
			{ type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }] },
		];
		expect(out.json).toMatchObject({ status: 'PENDING', components: sent });
		expect(storedTemplate(emu, 'order_case')?.components).toEqual(sent);
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
