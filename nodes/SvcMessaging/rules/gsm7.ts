/**
 * The GSM-7 alphabet (3GPP TS 23.038: the default alphabet and its extension table) and the
 * look-alike characters that turn an otherwise GSM-7 message into Unicode: word processors and
 * phones type curly quotes, dashes, ellipses and no-break spaces where the writer meant the plain
 * ones, and one of them puts the whole message at 70 instead of 160 characters per segment.
 */

// The default alphabet (the escape to the extension table left out: it is not a character).
const BASIC_CHARACTERS = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
// The extension table: each of these takes two septets (escape + character).
const EXTENSION_CHARACTERS = '^{}\\[~]|€\f';

const BASIC = new Set(BASIC_CHARACTERS);
const EXTENSION = new Set(EXTENSION_CHARACTERS);

/** Septets a character takes in GSM-7: 1, 2 (extension table), or 0 when it is not GSM-7. */
export function gsm7Septets(char: string): 0 | 1 | 2 {
	if (BASIC.has(char)) return 1;
	return EXTENSION.has(char) ? 2 : 0;
}

// The same sets as regular expressions: Send Bulk counts the text of every recipient, and a
// character class test is several times faster than a loop over code points.
const inClass = (chars: string) => chars.replace(/[\\\][^-]/g, '\\$&');
const ONLY_GSM7 = new RegExp(`^[${inClass(BASIC_CHARACTERS + EXTENSION_CHARACTERS)}]*$`);
const EXTENSION_ONE = new RegExp(`[${inClass(EXTENSION_CHARACTERS)}]`, 'g');

/** The septets of a text in GSM-7, or undefined when a character is not GSM-7. */
export function gsm7Length(text: string): number | undefined {
	if (!ONLY_GSM7.test(text)) return undefined;
	// Every GSM-7 character is one UTF-16 unit; an extension character takes one septet more.
	return text.length + (text.match(EXTENSION_ONE)?.length ?? 0);
}

/** Look-alike → its GSM-7 equivalent ('' for invisible characters, which are dropped). */
const LOOKALIKES: ReadonlyMap<string, string> = new Map([
	...[...'\u2018\u2019\u201A\u201B\u2032\u00B4`'].map((c): [string, string] => [c, "'"]),
	...[...'\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB'].map((c): [string, string] => [c, '"']),
	...[...'\u2010\u2011\u2012\u2013\u2014\u2015\u2212'].map((c): [string, string] => [c, '-']),
	['\u2026', '...'],
	...[...'\u00A0\u2002\u2003\u2007\u2008\u2009\u200A\u202F\u3000'].map((c): [string, string] => [c, ' ']),
	...[...'\u200B\u00AD\uFEFF'].map((c): [string, string] => [c, '']),
]);

/** A character as a user can find it in the text: itself (when visible) and its code point. */
export function codePointOf(char: string): string {
	return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function describeCharacter(char: string): string {
	const code = codePointOf(char);
	return /^[\s\u200B\u00AD\uFEFF]$/u.test(char) ? code : `"${char}" (${code})`;
}

export interface Gsm7Replacement {
	/** The look-alike itself, and its code point (`U+2013`): a no-break space reads as a space. */
	character: string;
	codePoint: string;
	replacement: string;
	count: number;
}

/** A link in a message: a look-alike inside one is part of an address or a reference (`ref=A–12`). */
const LINK = /\b[a-z][a-z0-9+.-]*:\/\/\S+|\bwww\.\S+|\b[\w-]+(?:\.[\w-]+)+\/\S*/gi;

/**
 * The text with every look-alike outside links replaced by its GSM-7 equivalent, and what was
 * replaced. Nothing is replaced when the text would stay Unicode anyway (an emoji, another script,
 * a look-alike inside a link): the change would save nothing.
 */
export function replaceLookalikes(text: string): { text: string; replaced: Gsm7Replacement[] } {
	const counts = new Map<string, number>();
	let out = '';
	const swap = (part: string) => {
		for (const char of part) {
			const replacement = LOOKALIKES.get(char);
			if (replacement === undefined) {
				out += char;
				continue;
			}
			out += replacement;
			counts.set(char, (counts.get(char) ?? 0) + 1);
		}
	};
	let from = 0;
	for (const link of text.matchAll(LINK)) {
		swap(text.slice(from, link.index));
		out += link[0];
		from = link.index + link[0].length;
	}
	swap(text.slice(from));
	if (counts.size === 0 || gsm7Length(out) === undefined) return { text, replaced: [] };
	const replaced = [...counts].map(([char, count]) => ({ character: char, codePoint: codePointOf(char), replacement: LOOKALIKES.get(char)!, count }));
	return { text: out, replaced };
}

export interface UnicodeCause {
	/** Distinct characters outside GSM-7, in order of first appearance. */
	characters: string[];
	/** Those that have a GSM-7 look-alike (replaceLookalikes fixes them). */
	lookalikes: string[];
	/** The text without them: look-alikes replaced, other characters left out. */
	withoutThem: string;
}

/** Why a text is Unicode; undefined when it is GSM-7. */
export function unicodeCause(text: string): UnicodeCause | undefined {
	const characters = new Set<string>();
	let withoutThem = '';
	for (const char of text) {
		if (gsm7Septets(char)) {
			withoutThem += char;
			continue;
		}
		characters.add(char);
		withoutThem += LOOKALIKES.get(char) ?? '';
	}
	if (!characters.size) return undefined;
	const list = [...characters];
	return { characters: list, lookalikes: list.filter((c) => LOOKALIKES.has(c)), withoutThem };
}
