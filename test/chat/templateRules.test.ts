/**
 * The chat platform's rules for template names and structure, and the bounds of chat links,
 * over real HTTP: refused before any request (counted at the emulator), and every name Create
 * accepts can be fetched and deleted again.
 */
import { useEmulator } from '../helpers/emulatorFixture';
import { chatSend, errorOf, formTemplate, jsonTemplate, locator, OPTED_IN, templateOp } from './helpers';

const emu = useEmulator({ timeScale: 0.1 });

const templateRequests = () => emu.control.requests().filter((r) => r.path.startsWith('/api/chat/templates'));
const chatPosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/messages');

describe('template names: the platform rule at Create', () => {
	it.each([['Bad Name'], ['../x'], ['order🎉'], ['Order_Update'], ['order-update'], ['order.update'], ['n'.repeat(513)]])(
		'refuses %p and creates nothing',
		async (name) => {
			const error = await errorOf(templateOp(emu.url, 'create', formTemplate(name)));
			expect(error.message).toMatch(/^Item 0: "Name" must (be lowercase letters a–z, digits 0–9 and underscores only|be at most 512 characters)/);
			expect(templateRequests()).toHaveLength(0);
			expect(emu.state.templates.size).toBe(0);
		},
	);

	it('every created name round-trips: 512 characters of the allowed alphabet are created, fetched and deleted', async () => {
		const name = `order_update_2_${'a'.repeat(512 - 15)}`;
		expect(name).toHaveLength(512);
		const [[created]] = await templateOp(emu.url, 'create', formTemplate(name));
		expect(created.json).toMatchObject({ name, status: 'PENDING' });
		const [[fetched]] = await templateOp(emu.url, 'get', { template: locator(name, 'name') });
		expect(fetched.json.name).toBe(name);
		const [[deleted]] = await templateOp(emu.url, 'delete', { template: locator(name, 'name') });
		expect(deleted.json).toMatchObject({ deleted: true, name });
		expect(emu.state.templates.size).toBe(0);
	});
});

describe('template structure: the review rules, refused before sending with the rule text', () => {
	const junk = (depth: number): unknown => (depth === 0 ? 'x' : { nested: junk(depth - 1) });
	it.each([
		['HEADER text with 2 variables', [{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}} for {{2}}' }, { type: 'BODY', text: 'Hi {{1}}, thanks.' }], 'HEADER: text may have at most 1 variable (it has 2)'],
		['FOOTER with a variable', [{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'FOOTER', text: 'Code {{1}} inside' }], 'FOOTER: text must not contain variables (it has 1)'],
		['BODY starting with a variable', [{ type: 'BODY', text: '{{1}} is your code.' }], 'BODY: text must not start with a variable: put words before and after each variable'],
		['BODY ending with a variable', [{ type: 'BODY', text: 'Your code is {{1}}' }], 'BODY: text must not end with a variable: put words before and after each variable'],
		['nested junk in a component', [{ type: 'BODY', text: 'Hi {{1}}, thanks.', extra: junk(50) }], 'BODY: has field the platform does not know: "extra" (allowed: type, text)'],
		['a text that is an object', [{ type: 'BODY', text: 'Hi there.' }, { type: 'FOOTER', text: { deep: junk(20) } }], 'FOOTER: "text" must be text, not an object'],
		[
			'junk in a button',
			[{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Ok', payload: junk(10) }] }],
			'BUTTONS: button 1: has field the platform does not know: "payload" (allowed: type, text, url, phone_number)',
		],
		[
			'a URL button over 2,048 characters',
			[{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Go', url: `https://example.com/${'u'.repeat(3000)}` }] }],
			'BUTTONS: button 1: url must be at most 2048 characters (it has 3020)',
		],
	])('%s', async (_rule, components, violation) => {
		const error = await errorOf(templateOp(emu.url, 'create', jsonTemplate('order_update', components)));
		expect(error.message).toMatch(/^Item 0: Template "order_update" breaks \d structure rules?: /);
		expect(error.message).toContain(violation);
		expect(templateRequests()).toHaveLength(0);
	});

	it('a header with one variable and a body with variables inside its text are created', async () => {
		const components = [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
			{ type: 'FOOTER', text: 'Reply STOP to opt out' },
		];
		const [[out]] = await templateOp(emu.url, 'create', jsonTemplate('order_shipped', components));
		expect(out.json).toMatchObject({ name: 'order_shipped', status: 'PENDING' });
		expect(templateRequests()).toHaveLength(1);
	});
});

describe('chat links and names are bounded', () => {
	it('refuses a media link over 2,048 characters and sends nothing', async () => {
		const mediaLink = `https://cdn.example.com/${'m'.repeat(100_000)}.png`;
		const error = await errorOf(chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'image', mediaLink }));
		expect(error.message).toMatch(/^Item 0: "Media Link" must be at most 2048 characters \(it has 100028\) \(got "https:\/\/cdn\.example\.com\/m+…"\)$/);
		expect(chatPosts()).toHaveLength(0);
	});

	it('refuses a chat text with a lone surrogate and sends nothing', async () => {
		const error = await errorOf(chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'text', text: 'Habari \uD83D' }));
		expect(error.message).toMatch(/^Item 0: "Text" must be well-formed text: character 8 is half of an emoji/);
		expect(chatPosts()).toHaveLength(0);
	});
});
