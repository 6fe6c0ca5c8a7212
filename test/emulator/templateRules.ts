/** Chat template structure rules: violations are 422 INVALID_TEMPLATE naming the component and rule. */
import { BUTTON_PHONE_PATTERN } from './assumptions';
import { badRequest, codePoints, unprocessable } from './http';
import {
	AUTHENTICATION_ONLY_BUTTONS,
	TEMPLATE_BODY_MAX,
	TEMPLATE_BODY_MAX_VARIABLES,
	TEMPLATE_BUTTON_CAPS,
	TEMPLATE_CATEGORIES,
	TEMPLATE_FOOTER_MAX,
	TEMPLATE_HEADER_FORMATS,
	TEMPLATE_HEADER_TEXT_MAX,
} from './limits';
import { isObject, optString, type Obj } from './validate';

const invalid = (message: string) => unprocessable('INVALID_TEMPLATE', message);

/** Number of distinct variables {{1}}..{{n}} in `text`; gaps or non-numbered placeholders are invalid. */
export function countVariables(component: string, text: string): number {
	const numbers = new Set<number>();
	for (const match of text.matchAll(/\{\{([^{}]*)\}\}/g)) {
		const inner = match[1].trim();
		if (!/^[1-9]\d*$/.test(inner)) {
			throw invalid(`${component}: variable {{${match[1]}}} is not numbered; use {{1}}, {{2}}, ...`);
		}
		numbers.add(Number(inner));
	}
	const n = numbers.size;
	for (let i = 1; i <= n; i++) {
		if (!numbers.has(i)) throw invalid(`${component}: variables must be numbered {{1}} to {{${n}}} without gaps; {{${i}}} is missing`);
	}
	return n;
}

function textOf(component: Obj, name: string, index: number): string {
	const text = optString(component, 'text', `components[${index}].text`);
	if (text === undefined || text.length === 0) throw invalid(`${name}: text is required`);
	return text;
}

export interface TemplateShape {
	bodyVariables: number;
	headerVariables: number;
}

export function checkTemplate(category: string, components: unknown): TemplateShape {
	if (!TEMPLATE_CATEGORIES.includes(category as (typeof TEMPLATE_CATEGORIES)[number])) {
		throw invalid(`category: must be one of ${TEMPLATE_CATEGORIES.join(', ')}`);
	}
	if (!Array.isArray(components)) throw badRequest('components must be an array');
	const seen = new Set<string>();
	let bodyVariables = -1;
	let headerVariables = 0;
	components.forEach((component, i) => {
		if (!isObject(component)) throw badRequest(`components[${i}] must be an object`);
		const type = optString(component, 'type', `components[${i}].type`);
		if (!type) throw badRequest(`components[${i}].type is required`);
		if (!['HEADER', 'BODY', 'FOOTER', 'BUTTONS'].includes(type)) {
			throw invalid(`components[${i}]: type '${type}' is not one of HEADER, BODY, FOOTER, BUTTONS`);
		}
		if (seen.has(type)) throw invalid(`${type}: only one ${type} component is allowed`);
		seen.add(type);
		if (type === 'BODY') {
			const text = textOf(component, 'BODY', i);
			if (codePoints(text) > TEMPLATE_BODY_MAX) throw invalid(`BODY: text exceeds ${TEMPLATE_BODY_MAX} characters`);
			bodyVariables = countVariables('BODY', text);
			if (bodyVariables > TEMPLATE_BODY_MAX_VARIABLES) {
				throw invalid(`BODY: at most ${TEMPLATE_BODY_MAX_VARIABLES} variables are allowed, found ${bodyVariables}`);
			}
		} else if (type === 'HEADER') {
			const format = optString(component, 'format', `components[${i}].format`);
			if (!format || !TEMPLATE_HEADER_FORMATS.includes(format as (typeof TEMPLATE_HEADER_FORMATS)[number])) {
				throw invalid(`HEADER: format must be one of ${TEMPLATE_HEADER_FORMATS.join(', ')}`);
			}
			if (format === 'TEXT') {
				const text = textOf(component, 'HEADER', i);
				if (codePoints(text) > TEMPLATE_HEADER_TEXT_MAX) {
					throw invalid(`HEADER: text exceeds ${TEMPLATE_HEADER_TEXT_MAX} characters`);
				}
				headerVariables = countVariables('HEADER', text);
			}
		} else if (type === 'FOOTER') {
			if (codePoints(textOf(component, 'FOOTER', i)) > TEMPLATE_FOOTER_MAX) {
				throw invalid(`FOOTER: text exceeds ${TEMPLATE_FOOTER_MAX} characters`);
			}
		} else {
			checkButtons(category, component.buttons, i);
		}
	});
	if (bodyVariables < 0) throw invalid('BODY: a BODY component is required');
	return { bodyVariables, headerVariables };
}

function checkButtons(category: string, buttons: unknown, index: number): void {
	if (!Array.isArray(buttons)) throw badRequest(`components[${index}].buttons must be an array`);
	if (buttons.length === 0) throw invalid('BUTTONS: at least one button is required');
	const counts: Record<string, number> = {};
	buttons.forEach((button, j) => {
		const name = `components[${index}].buttons[${j}]`;
		if (!isObject(button)) throw badRequest(`${name} must be an object`);
		const type = optString(button, 'type', `${name}.type`);
		if (!type) throw badRequest(`${name}.type is required`);
		if (!(type in TEMPLATE_BUTTON_CAPS)) {
			throw invalid(`BUTTONS: button type '${type}' is not one of ${Object.keys(TEMPLATE_BUTTON_CAPS).join(', ')}`);
		}
		const text = optString(button, 'text', `${name}.text`);
		if (!AUTHENTICATION_ONLY_BUTTONS.includes(type) && !text?.trim()) throw invalid(`BUTTONS: a ${type} button needs a text`);
		if (type === 'URL' && !/^https?:\/\/\S+$/i.test(optString(button, 'url', `${name}.url`) ?? '')) {
			throw invalid('BUTTONS: a URL button needs an http(s) url');
		}
		if (type === 'PHONE_NUMBER' && !BUTTON_PHONE_PATTERN.test(optString(button, 'phone_number', `${name}.phone_number`) ?? '')) {
			throw invalid('BUTTONS: a PHONE_NUMBER button needs an E.164 phone_number');
		}
		if (AUTHENTICATION_ONLY_BUTTONS.includes(type) && category !== 'AUTHENTICATION') {
			throw invalid(`BUTTONS: ${type} buttons are allowed only in AUTHENTICATION templates`);
		}
		counts[type] = (counts[type] ?? 0) + 1;
		if (counts[type] > TEMPLATE_BUTTON_CAPS[type]) {
			throw invalid(`BUTTONS: at most ${TEMPLATE_BUTTON_CAPS[type]} ${type} button(s) per template`);
		}
	});
}
