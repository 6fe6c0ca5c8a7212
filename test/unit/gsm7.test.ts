/**
 * rules/gsm7.ts: the GSM-7 alphabet of 3GPP TS 23.038 (default alphabet + extension table), the
 * look-alikes replaced by their GSM-7 equivalents, and why a text is Unicode.
 */
import { describeCharacter, gsm7Length, gsm7Septets, replaceLookalikes, unicodeCause } from '../../nodes/SvcMessaging/rules/gsm7';
import { analyzeMessage, unicodeCostNote } from '../../nodes/SvcMessaging/rules/segments';

// TS 23.038 §6.2.1: the 128 positions of the default alphabet (0x1B, the escape, shown as a space here
// and checked apart) and the extension table's characters.
const DEFAULT_ALPHABET =
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001BÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION = '\f^{}\\[~]|€';

describe('GSM-7 alphabet (3GPP TS 23.038)', () => {
	it('the default alphabet has 128 positions; each character but the escape is one septet', () => {
		expect([...DEFAULT_ALPHABET]).toHaveLength(128);
		for (const c of DEFAULT_ALPHABET) expect([c, gsm7Septets(c)]).toEqual([c, c === '\u001B' ? 0 : 1]);
	});

	it('the extension table characters are two septets; common non-GSM characters are none', () => {
		for (const c of EXTENSION) expect([c, gsm7Septets(c)]).toEqual([c, 2]);
		for (const c of ['`', 'ç', 'ë', '’', '–', '…', '\u00A0', '😀', 'д']) expect([c, gsm7Septets(c)]).toEqual([c, 0]);
	});

	it('the whole-text count (a regular expression) agrees with the alphabet for every BMP character', () => {
		const disagree: string[] = [];
		for (let code = 0; code <= 0xffff; code++) {
			const c = String.fromCharCode(code);
			const septets = gsm7Septets(c);
			if (gsm7Length(`a${c}b`) !== (septets ? 2 + septets : undefined)) disagree.push(describeCharacter(c));
		}
		expect(disagree).toEqual([]);
		expect(gsm7Length('')).toBe(0);
		expect(gsm7Length('[x]^€')).toBe(9);
		expect(gsm7Length('x😀')).toBeUndefined();
	});

	it('segments: 160 septets per segment, extension characters counting two', () => {
		expect(analyzeMessage('€'.repeat(80))).toMatchObject({ encoding: 'GSM-7', segments: 1 });
		expect(analyzeMessage('€'.repeat(81))).toMatchObject({ encoding: 'GSM-7', segments: 2 });
	});
});

describe('look-alikes', () => {
	it('replaces quotes, dashes, the ellipsis and spaces; drops invisible characters; counts each', () => {
		const { text, replaced } = replaceLookalikes('‘a’ “b” c–d—e … f\u00A0g\u202Fh\u200Bi ’');
		expect(text).toBe('\'a\' "b" c-d-e ... f g hi \'');
		expect(analyzeMessage(text).encoding).toBe('GSM-7');
		expect(replaced).toEqual([
			{ character: '‘', codePoint: 'U+2018', replacement: "'", count: 1 },
			{ character: '’', codePoint: 'U+2019', replacement: "'", count: 2 },
			{ character: '“', codePoint: 'U+201C', replacement: '"', count: 1 },
			{ character: '”', codePoint: 'U+201D', replacement: '"', count: 1 },
			{ character: '–', codePoint: 'U+2013', replacement: '-', count: 1 },
			{ character: '—', codePoint: 'U+2014', replacement: '-', count: 1 },
			{ character: '…', codePoint: 'U+2026', replacement: '...', count: 1 },
			{ character: '\u00A0', codePoint: 'U+00A0', replacement: ' ', count: 1 },
			{ character: '\u202F', codePoint: 'U+202F', replacement: ' ', count: 1 },
			{ character: '\u200B', codePoint: 'U+200B', replacement: '', count: 1 },
		]);
	});

	it('leaves GSM-7 text and other Unicode (emoji, other scripts) as they are', () => {
		expect(replaceLookalikes('Hi {name} €5 😀 Привет')).toEqual({ text: 'Hi {name} €5 😀 Привет', replaced: [] });
	});

	it('never touches a link: an address or reference in it stays as written', () => {
		expect(replaceLookalikes('It’s here: https://shop.example.com/o?ref=A–12 ok')).toEqual({
			text: 'It’s here: https://shop.example.com/o?ref=A–12 ok',
			replaced: [],
		});
		const inText = replaceLookalikes('It’s at www.example.com/x and shop.example.com/a–b – thanks');
		expect(inText.text).toBe('It’s at www.example.com/x and shop.example.com/a–b – thanks');
		const outside = replaceLookalikes('It’s here – https://shop.example.com/o?ref=A-12');
		expect(outside).toEqual({ text: "It's here - https://shop.example.com/o?ref=A-12", replaced: expect.any(Array) });
		expect(outside.replaced).toHaveLength(2);
	});

	it('replaces nothing when the message would stay Unicode anyway (an emoji)', () => {
		expect(replaceLookalikes('It’s ready 🎉 – come in')).toEqual({ text: 'It’s ready 🎉 – come in', replaced: [] });
	});

	it('names invisible characters by code point only, others with the character', () => {
		expect(describeCharacter('\u00A0')).toBe('U+00A0');
		expect(describeCharacter('😀')).toBe('"😀" (U+1F600)');
	});
});

describe('why a text is Unicode, and the hint', () => {
	it('lists the non-GSM characters, those with a look-alike, and the text without them', () => {
		expect(unicodeCause('plain text')).toBeUndefined();
		expect(unicodeCause('It’s 😀 – ok')).toEqual({ characters: ['’', '😀', '–'], lookalikes: ['’', '–'], withoutThem: "It's  - ok" });
	});

	it('the hint: characters named (at most 8, the rest counted), credits with and without them', () => {
		const long = (s: string) => `${s}${'x'.repeat(80)}`;
		expect(unicodeCostNote([long('’'), long('’'), 'plain'], false)).toBe(
			'2 of 3 messages are sent as Unicode (70 characters per segment instead of 160) because of "’" (U+2019): 4 credits; without them 2. Turn on Options → Replace Look-Alike Characters to send the plain GSM-7 equivalents of quotes, dashes, ellipses and spaces.',
		);
		expect(unicodeCostNote([long('абвгдежзиклм')], false)).toMatch(/because of "а" \(U\+0430\), .*"з" \(U\+0437\) and 4 more: 2 credits; without them 1\. Remove them/);
		// Short messages cost one credit either way: no hint.
		expect(unicodeCostNote(['It’s here'], false)).toBeUndefined();
	});
});
