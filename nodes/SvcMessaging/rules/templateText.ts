import type { INode } from 'n8n-workflow';

import { failItem } from './fields';

/**
 * What the spec says of chat templates' text: categories, formats, limits, `{{n}}` variables,
 * language codes and what a message using a template must supply.
 */
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE'] as const;
export const TEMPLATE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export const HEADER_FORMATS = ['TEXT', 'IMAGE', 'DOCUMENT', 'VIDEO'] as const;
export const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP'] as const;

export type HeaderFormat = (typeof HEADER_FORMATS)[number];
export type ButtonType = (typeof BUTTON_TYPES)[number];

/** The spec's Limits table and template content structure. */
export const TEMPLATE_LIMITS = {
	bodyMaxCharacters: 1024,
	bodyMaxVariables: 25,
	headerTextMaxCharacters: 60,
	footerMaxCharacters: 60,
	buttonCaps: { QUICK_REPLY: 3, URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1, OTP: 1 } as Record<ButtonType, number>,
	authenticationOnlyButtons: ['COPY_CODE', 'OTP'] as ButtonType[],
} as const;

export interface TemplateButton {
	type?: unknown;
	text?: unknown;
	url?: unknown;
	phone_number?: unknown;
	[key: string]: unknown;
}

export interface TemplateComponent {
	type?: unknown;
	format?: unknown;
	text?: unknown;
	buttons?: unknown;
	[key: string]: unknown;
}

export interface TemplateViolation {
	/** HEADER, BODY, FOOTER, BUTTONS, or TEMPLATE for the template as a whole */
	component: string;
	/** short name of the rule, e.g. "body-max-length" */
	rule: string;
	message: string;
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Every `{{…}}` of a text: the numbered ones (`{{1}}`, also `{{ 1 }}`) and those that are not a number. */
export function placeholdersIn(text: string): { numbers: number[]; malformed: string[] } {
	const numbers: number[] = [];
	const malformed: string[] = [];
	for (const match of text.matchAll(PLACEHOLDER)) {
		const inner = match[1].trim();
		if (/^[1-9]\d*$/.test(inner)) numbers.push(Number(inner));
		else malformed.push(match[0]);
	}
	return { numbers, malformed };
}

/** The distinct variable numbers of a text, ascending. */
export function variableNumbers(text: string): number[] {
	return [...new Set(placeholdersIn(text).numbers)].sort((a, b) => a - b);
}

export function textOf(value: unknown): string | undefined {
	return typeof value === 'string' ? value : undefined;
}

export function upper(value: unknown): string {
	return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

/** What a message using the template must supply, read from its HEADER and BODY. */
export interface TemplateSlots {
	headerFormat: HeaderFormat | null;
	headerVariables: number;
	bodyVariables: number;
}

export function templateSlots(components: unknown): TemplateSlots {
	const list = (Array.isArray(components) ? components : []) as TemplateComponent[];
	const find = (type: string) => list.find((c) => c && typeof c === 'object' && upper(c.type) === type);
	const header = find('HEADER');
	const body = find('BODY');
	const headerFormat = header ? (upper(header.format) as HeaderFormat) : null;
	return {
		headerFormat,
		headerVariables: headerFormat === 'TEXT' ? variableNumbers(textOf(header?.text) ?? '').length : 0,
		bodyVariables: variableNumbers(textOf(body?.text) ?? '').length,
	};
}

/** Item `i`'s language code in the platform's form, or `Item N: <problem>`. */
export function checkLanguageCode(node: INode, i: number, value: unknown, problem: string): string {
	const code = normalizeLanguageCode(value);
	if (!code) failItem(node, i, problem);
	return code;
}

/**
 * Language codes as the platform writes them: `en`, `sw`, `en_US`, `pt_BR`. Accepts `en-us` or
 * `EN_us` and returns the canonical form, or undefined when the code has another shape.
 */
export function normalizeLanguageCode(input: unknown): string | undefined {
	if (typeof input !== 'string') return undefined;
	const match = /^([a-z]{2,3})(?:[-_]([a-z]{2}))?$/i.exec(input.trim());
	if (!match) return undefined;
	return match[2] ? `${match[1].toLowerCase()}_${match[2].toUpperCase()}` : match[1].toLowerCase();
}

/**
 * Field ids of the template-variables mapper, `header_1`… and `body_1`…, one per distinct variable of
 * the template's TEXT header and body. (The spec's message parameters are text only: a media
 * header's file is part of the template.)
 */
export function variableFieldIds(components: unknown): { header: string[]; body: string[] } {
	const slots = templateSlots(components);
	return {
		header: Array.from({ length: slots.headerVariables }, (_, k) => `header_${k + 1}`),
		body: Array.from({ length: slots.bodyVariables }, (_, k) => `body_${k + 1}`),
	};
}

/**
 * The text a template message shows its recipient: the TEXT header, the body and the footer, one per
 * line, each variable replaced by its value (`values` by the mapper's field ids, as sent).
 */
export function filledTemplateText(components: unknown, values: Record<string, unknown>): string {
	const list = (Array.isArray(components) ? components : []) as TemplateComponent[];
	const part = (type: string, prefix: string) => {
		const component = list.find((c) => c && typeof c === 'object' && upper(c.type) === type);
		const text = textOf(component?.text);
		if (text === undefined || (type === 'HEADER' && upper(component?.format) !== 'TEXT')) return undefined;
		const numbers = variableNumbers(text);
		return text.replace(PLACEHOLDER, (whole, inner: string) => {
			const position = numbers.indexOf(Number(inner.trim()));
			return position < 0 ? whole : String(values[`${prefix}_${position + 1}`] ?? whole);
		});
	};
	return [part('HEADER', 'header'), part('BODY', 'body'), part('FOOTER', 'footer')].filter((t) => t !== undefined).join('\n');
}
