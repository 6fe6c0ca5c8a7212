/**
 * What Send, Send and Wait and Send Bulk tell the user about what was sent and what it cost, over real HTTP
 * against the emulator (which counts segments on its own): Send's output shows the text as sent;
 * each Send Bulk recipient carries the segments and credits of the text it received; a hint names
 * the characters that make a message Unicode and the credits with and without them; Replace
 * Look-Alike Characters (off by default) sends their GSM-7 equivalents and says what it replaced.
 */
import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { description as sendAndWaitDescription } from '../../nodes/SvcMessaging/actions/sms/sendAndWait.operation';
import { executeNodeWithHints } from '../helpers/n8n';
import { apiKeyCredentials, sendBulkParameters, sendParameters, sent } from './fixtures';

const emu = useEmulator();

const run = async (parameters: IDataObject, items: IDataObject[]) => {
	const { output, hints } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url) }, items);
	return { out: output[0].map((i) => i.json), hints };
};

const bulk = sendBulkParameters;
const sendAndWaitParameters = (extra: IDataObject) =>
	sendParameters({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30, options: { pollInterval: 1 }, ...extra });

// 100 characters with a curly apostrophe: Unicode, 2 segments; with "'" GSM-7, 1 segment.
const CURLY = `We’re on our way – see you at 10:00${'.'.repeat(65)}`;
const PLAIN = `We're on our way - see you at 10:00${'.'.repeat(65)}`;

describe('SMS → Send: the sent text in the output', () => {
	it('shows the message exactly as the service received it (a stray " }}" is visible)', async () => {
		const { out } = await run(sendParameters({ message: 'Your code is 123456 }}' }), [{ phone: '+254712345678' }, { phone: '+254712345999' }]);
		const received = emu.control.messages().map((m) => m.message);
		expect(received).toEqual(['Your code is 123456 }}', 'Your code is 123456 }}']);
		expect(out.map((o) => o.message)).toEqual(received);
	});
});

describe('SMS → Send Bulk: segments and credits per recipient', () => {
	it("each recipient's estimate is what the service counted for the text it received", async () => {
		const items = [
			{ phone: '+254712345601', name: 'Amina' },
			{ phone: '+254712345602', name: 'x'.repeat(200) },
			{ phone: '+254712345603', name: 'Zoë Ωmega 😀' },
		];
		const { out } = await run(bulk(), items);
		expect(sent(emu)).toHaveLength(1);
		const counted = new Map(emu.control.messages().map((m) => [m.phoneNumber, m.segments]));
		expect(out.map((o) => [o.phoneNumber, o.encoding, o.segments, o.credits])).toEqual([
			['+254712345601', 'GSM-7', 1, 1],
			['+254712345602', 'GSM-7', 2, 2],
			['+254712345603', 'Unicode', 1, 1],
		]);
		for (const o of out) expect(o.segments).toBe(counted.get(o.phoneNumber as string));
	});

	it("each recipient's `message` is the text it received, placeholders filled (as the emulator recorded it)", async () => {
		const items = [
			{ phone: '+254712345611', name: 'Amina' },
			{ phone: '+254712345612', name: 'Brian' },
		];
		const { out } = await run(bulk({ message: 'Hi {{name}}, your order shipped' }), items);
		const received = new Map(emu.control.messages().map((m) => [m.phoneNumber, m.message]));
		expect(out.map((o) => o.message)).toEqual(['Hi Amina, your order shipped', 'Hi Brian, your order shipped']);
		for (const o of out) expect(o.message).toBe(received.get(o.phoneNumber as string));
	});
});

describe('Unicode cost: the hint and Replace Look-Alike Characters', () => {
	it('Send: the hint names the characters and the credits with and without them; nothing is changed by default', async () => {
		const { out, hints } = await run(sendParameters({ message: CURLY }), [{ phone: '+254712345678' }, { phone: '+254712345999' }]);
		expect(emu.control.messages().map((m) => m.message)).toEqual([CURLY, CURLY]);
		expect(out[0]).toMatchObject({ encoding: 'Unicode', segments: 2, creditsUsed: 2 });
		expect(out[0].replacedCharacters).toBeUndefined();
		const hint = hints.find((h) => /Unicode/.test(h));
		expect(hint).toBe(
			'2 of 2 messages are sent as Unicode (70 characters per segment instead of 160) because of "’" (U+2019), "–" (U+2013): 4 credits; without them 2. Turn on Options → Replace Look-Alike Characters to send the plain GSM-7 equivalents of quotes, dashes, ellipses and spaces.',
		);
	});

	it('Send: no hint when the message costs the same either way, or has no Unicode', async () => {
		const short = await run(sendParameters({ message: 'We’re here' }), [{ phone: '+254712345678' }]);
		const plain = await run(sendParameters({ message: PLAIN }), [{ phone: '+254712345678' }]);
		expect([...short.hints, ...plain.hints].filter((h) => /Unicode/.test(h))).toEqual([]);
	});

	it('Send: an emoji is named, and removing it is the advice (no look-alike to replace)', async () => {
		const { hints } = await run(sendParameters({ message: `Party time 🎉${'!'.repeat(70)}` }), [{ phone: '+254712345678' }]);
		expect(hints.find((h) => /Unicode/.test(h))).toBe(
			'The message is sent as Unicode (70 characters per segment instead of 160) because of "🎉" (U+1F389): 2 credits; without them 1. Remove them (or accept the cost) to send GSM-7.',
		);
	});

	it('Send with the option on: the service receives GSM-7 and the output lists what was replaced', async () => {
		const { out, hints } = await run(sendParameters({ message: `“Hi”… ${CURLY}\u00A0—`, options: { replaceLookalikes: true } }), [{ phone: '+254712345678' }]);
		const [received] = emu.control.messages();
		expect(received.message).toBe(`"Hi"... ${PLAIN} -`);
		expect(received.encoding).toBe('GSM7');
		expect(out[0]).toMatchObject({ encoding: 'GSM-7', message: received.message, segments: 1, creditsUsed: 1 });
		expect(out[0].replacedCharacters).toEqual([
			{ character: '“', codePoint: 'U+201C', replacement: '"', count: 1 },
			{ character: '”', codePoint: 'U+201D', replacement: '"', count: 1 },
			{ character: '…', codePoint: 'U+2026', replacement: '...', count: 1 },
			{ character: '’', codePoint: 'U+2019', replacement: "'", count: 1 },
			{ character: '–', codePoint: 'U+2013', replacement: '-', count: 1 },
			{ character: '\u00A0', codePoint: 'U+00A0', replacement: ' ', count: 1 },
			{ character: '—', codePoint: 'U+2014', replacement: '-', count: 1 },
		]);
		expect(hints.filter((h) => /Unicode/.test(h))).toEqual([]);
	});

	it('the option leaves links as written and replaces nothing in a message that stays Unicode anyway', async () => {
		const link = 'https://shop.example.com/o?ref=A–12';
		await run(sendParameters({ message: `It’s here: ${link}`, options: { replaceLookalikes: true } }), [{ phone: '+254712345678' }]);
		await run(sendParameters({ message: 'It’s ready 🎉 – come in', options: { replaceLookalikes: true } }), [{ phone: '+254712345678' }]);
		await run(sendParameters({ message: `It’s here – ${link.replace('–', '-')}`, options: { replaceLookalikes: true } }), [{ phone: '+254712345678' }]);
		expect(emu.control.messages().map((m) => [m.message, m.encoding])).toEqual([
			[`It’s here: ${link}`, 'UNICODE'],
			['It’s ready 🎉 – come in', 'UNICODE'],
			["It's here - https://shop.example.com/o?ref=A-12", 'GSM7'],
		]);
	});

	it('Send and Wait has the option too (its Unicode hint names it): the service receives GSM-7, the output lists what was replaced', async () => {
		const optionNames = (sendAndWaitDescription.find((p) => p.name === 'options')?.options as Array<{ name: string }>).map((o) => o.name);
		expect(optionNames).toContain('replaceLookalikes');
		const { output, hints } = await executeNodeWithHints(
			{ parameters: sendAndWaitParameters({ message: CURLY, options: { pollInterval: 1, replaceLookalikes: true } }), credentials: apiKeyCredentials(emu.url) },
			[{ phone: '+254712345678' }],
		);
		expect(emu.control.messages().map((m) => [m.message, m.encoding])).toEqual([[PLAIN, 'GSM7']]);
		expect(output[0].map((i) => [i.json.status, i.json.replacedCharacters])).toEqual([
			[
				'DELIVERED',
				[
					{ character: '’', codePoint: 'U+2019', replacement: "'", count: 1 },
					{ character: '–', codePoint: 'U+2013', replacement: '-', count: 1 },
				],
			],
		]);
		expect(hints.filter((h) => /Unicode/.test(h))).toEqual([]);
	});

	it('Send and Wait: the Unicode hint, but no advice to use Send Bulk (which does not wait for delivery)', async () => {
		const items = Array.from({ length: 20 }, (_, i) => ({ phone: `+2547123456${String(10 + i)}` }));
		const waited = await executeNodeWithHints({ parameters: sendAndWaitParameters({ message: CURLY }), credentials: apiKeyCredentials(emu.url) }, items);
		expect(waited.hints.find((h) => /Unicode/.test(h))).toMatch(/Turn on Options → Replace Look-Alike Characters/);
		expect(waited.hints.filter((h) => /Send Bulk/.test(h))).toEqual([]);
		await emu.control.reset();
		const sentOnly = await run(sendParameters({ message: CURLY }), items);
		expect(sentOnly.hints.filter((h) => /Send Bulk/.test(h))).toHaveLength(1);
	});

	it('Send Bulk: the hint for the message, and the option replaces in the message before sending', async () => {
		const items = [
			{ phone: '+254712345601', name: 'Amina' },
			{ phone: '+254712345602', name: 'Baraka' },
		];
		const message = `Hi {{name}}, ${CURLY}`;
		const off = await run(bulk({ message }), items);
		expect(off.hints.find((h) => /Unicode/.test(h))).toMatch(/^2 of 2 messages are sent as Unicode .* because of "’" \(U\+2019\), "–" \(U\+2013\): 4 credits; without them 2\. Turn on Options → Replace Look-Alike Characters/);
		expect(off.out.map((o) => [o.encoding, o.credits])).toEqual([['Unicode', 2], ['Unicode', 2]]);

		await emu.control.reset();
		const on = await run(bulk({ message, options: { replaceLookalikes: true } }), items);
		expect(emu.control.messages().map((m) => [m.message, m.segments])).toEqual([[`Hi Amina, ${PLAIN}`, 1], [`Hi Baraka, ${PLAIN}`, 1]]);
		expect(on.out.map((o) => [o.encoding, o.credits])).toEqual([['GSM-7', 1], ['GSM-7', 1]]);
		expect(on.out[0].replacedCharacters).toEqual([
			{ character: '’', codePoint: 'U+2019', replacement: "'", count: 1 },
			{ character: '–', codePoint: 'U+2013', replacement: '-', count: 1 },
		]);
		expect(on.hints.filter((h) => /Unicode/.test(h))).toEqual([]);
	});
});
