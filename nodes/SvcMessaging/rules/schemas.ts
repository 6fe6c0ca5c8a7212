import { z } from 'zod';

import { INPUT_LIMITS } from '../transport/service';

/**
 * The shared field schemas: every operation's parameters pass through these before anything is
 * sent. Each carries its rule text, which errors show as `Item N: "Field" rule`; a value of the
 * wrong type is named ("must be text, not an object").
 */

/** White space, zero-width characters, direction marks, the BOM and fillers: they show nothing. */
// The combining marks (U+034F, U+17B4-17B5, variation selectors) come first, after \s: none follows a character.
const VISIBLE = /[^\s\u034F\u17B4-\u17B5\uFE00-\uFE0F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0]/u;

/** Whether anything in the text shows (a test, not a copy: Send Bulk checks this per recipient). */
export function hasVisibleCharacter(text: string): boolean {
	return VISIBLE.test(text);
}

/** What a value is, in words, for an error that says it has the wrong type. */
export function kindOf(value: unknown): string {
	if (value === null) return 'empty (null)';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'number') return Number.isFinite(value) ? `a number (${value})` : `${value} (not a finite number)`;
	if (typeof value === 'boolean') return `a boolean (${value})`;
	return `a ${typeof value}`;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/** Half of a UTF-16 surrogate pair without its other half: no character, so no valid text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where text is not well-formed Unicode (a lone surrogate), as a 1-based character position; undefined when it is. */
export function loneSurrogateAt(text: string): number | undefined {
	if (!SURROGATE.test(text)) return undefined;
	const match = LONE_SURROGATE.exec(text);
	return match ? characters(text.slice(0, match.index)) + 1 : undefined;
}

/** The rule text of a lone surrogate, shared by every text field and template text. */
export function loneSurrogateRule(position: number): string {
	return `must be well-formed text: character ${position} is half of an emoji or other character (a lone UTF-16 surrogate; the text was probably cut in the middle of one)`;
}

/** Unicode code points: what the spec calls characters. */
export function characters(text: string): number {
	if (!SURROGATE.test(text)) return text.length;
	// A pair is one code point; a lone surrogate counts as one, as iterating the string does.
	return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

const wrongType = (expected: string): z.ZodErrorMap => (issue, ctx) =>
	issue.code === 'invalid_type' ? { message: `must be ${expected}, not ${kindOf(ctx.data)}` } : { message: ctx.defaultError };

/** A string of well-formed text; numbers (from expressions) are read as their digits. */
const textValue = (expected = 'text'): z.ZodType<string, z.ZodTypeDef, unknown> =>
	z.preprocess(
		(v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v),
		z.string({ errorMap: wrongType(expected) }).superRefine((t, ctx) => {
			const position = loneSurrogateAt(t);
			if (position !== undefined) ctx.addIssue({ code: 'custom', message: loneSurrogateRule(position) });
		}),
	) as z.ZodType<string, z.ZodTypeDef, unknown>;

export interface TextRules {
	/** whether an empty value is refused (default true; optional fields check only what is given) */
	required?: boolean;
	/** at most this many characters */
	max?: number;
	/** at least one character that shows (not only spaces, zero-width characters or direction marks) */
	visible?: boolean;
}

/** Text with its rules; an empty or blank value is refused with "must not be empty". */
export function textField(rules: TextRules = {}): z.ZodType<string, z.ZodTypeDef, unknown> {
	return textValue()
		.refine((t) => rules.required === false || t.trim() !== '', { message: 'must not be empty' })
		.refine((t) => !rules.visible || t.trim() === '' || hasVisibleCharacter(t), {
			message: 'must contain a visible character (it has only spaces, zero-width characters or direction marks)',
		})
		.superRefine((t, ctx) => {
			if (rules.max === undefined) return;
			const count = characters(t);
			if (count > rules.max) ctx.addIssue({ code: 'custom', message: `must be at most ${rules.max} characters (it has ${count})` });
		});
}

/**
 * An identifier that becomes one segment of a request path (message ID, batch ID, template
 * name): not empty, not a dot segment (which would change the path), no control characters, and
 * at most `max` characters.
 */
export function pathIdOf(max: number) {
	return textValue('text or a number')
		.transform((t) => t.trim())
		.refine((t) => t !== '', { message: 'must not be empty' })
		.refine((t) => t !== '.' && t !== '..', { message: 'must not be "." or ".."' })
		.refine((t) => ![...t].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), { message: 'must not contain control characters' })
		.refine((t) => characters(t) <= max, { message: `must be at most ${max} characters` });
}

export const pathId = pathIdOf(INPUT_LIMITS.maxPathIdCharacters);

const MAX_URL = INPUT_LIMITS.maxUrlCharacters;

/** Why `text` cannot be a web address (http:// or https://, at most 2,048 characters), or undefined. */
export function urlProblem(text: string, httpsOnly = false): string | undefined {
	const count = characters(text);
	if (count > MAX_URL) return `must be at most ${MAX_URL} characters (it has ${count})`;
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return httpsOnly ? 'must be a full URL starting with https://' : 'must be a full URL';
	}
	if (httpsOnly ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:') {
		return httpsOnly ? 'must start with https://' : 'must start with http:// or https://';
	}
	return undefined;
}

/** A web address (see urlProblem), trimmed. */
export const urlField = textValue()
	.transform((t) => t.trim())
	.superRefine((t, ctx) => {
		const problem = urlProblem(t);
		if (problem) ctx.addIssue({ code: 'custom', message: problem });
	});

/** A choice among fixed values, e.g. a recipient type. */
export function oneOf<T extends string>(values: readonly T[]) {
	return textValue().superRefine((v, ctx) => {
		if (!(values as readonly string[]).includes(v)) {
			ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')} (got "${v.slice(0, 40)}")` });
		}
	}) as unknown as z.ZodType<T, z.ZodTypeDef, unknown>;
}

/** A value that fills a `{{placeholder}}` or a template variable: text or a number, nothing else. */
export const variableValue = textValue('text or a number');
