/**
 * The rules the chat platform's review applies to a template's components beyond the spec's
 * table: where variables may stand, and that a component holds only the fields it knows (anything
 * else would be sent along and the template REJECTED days later).
 */
import { INPUT_LIMITS } from '../transport/service';
import { kindOf, loneSurrogateAt, loneSurrogateRule, urlProblem } from './schemas';
import { placeholdersIn, type TemplateViolation } from './templateText';

/** The fields each component type may have (the spec's component shapes). */
const FIELDS: Record<string, string[]> = {
	HEADER: ['type', 'format', 'text'],
	BODY: ['type', 'text'],
	FOOTER: ['type', 'text'],
	BUTTONS: ['type', 'buttons'],
};
const BUTTON_FIELDS = ['type', 'text', 'url', 'phone_number'];
const TEXT_FIELDS = ['type', 'format', 'text', 'url', 'phone_number'];

/** At most this many variables in a TEXT header (the platform's rule). */
export const HEADER_MAX_VARIABLES = 1;

/** Fields a component or button must not have, and text fields that are not text. */
export function checkFields(where: string, value: Record<string, unknown>, allowed: string[], violations: TemplateViolation[], label = '') {
	const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
	if (unknown.length) {
		violations.push({
			component: where,
			rule: 'unknown-field',
			message: `${label}has field${unknown.length === 1 ? '' : 's'} the platform does not know: ${unknown
				.slice(0, 5)
				.map((k) => JSON.stringify(k.slice(0, 40)))
				.join(', ')} (allowed: ${allowed.join(', ')})`,
		});
	}
	for (const key of TEXT_FIELDS) {
		const field = value[key];
		if (!allowed.includes(key) || field === undefined) continue;
		if (typeof field !== 'string') {
			violations.push({ component: where, rule: 'field-type', message: `${label}"${key}" must be text, not ${kindOf(field)}` });
			continue;
		}
		const position = loneSurrogateAt(field);
		if (position !== undefined) violations.push({ component: where, rule: 'well-formed-text', message: `${label}"${key}" ${loneSurrogateRule(position)}` });
	}
}

/** The component-level checks: known fields, and the variable rules of HEADER, FOOTER and BODY. */
export function checkComponent(type: string, component: Record<string, unknown>, violations: TemplateViolation[]): void {
	checkFields(type, component, FIELDS[type], violations);
	const text = typeof component.text === 'string' ? component.text : '';
	const { numbers, malformed } = placeholdersIn(text);
	const variables = numbers.length + malformed.length;
	if (type === 'HEADER' && variables > HEADER_MAX_VARIABLES) {
		violations.push({
			component: 'HEADER',
			rule: 'header-max-variables',
			message: `text may have at most ${HEADER_MAX_VARIABLES} variable (it has ${variables})`,
		});
	}
	if (type === 'FOOTER' && variables > 0) {
		violations.push({ component: 'FOOTER', rule: 'footer-no-variables', message: `text must not contain variables (it has ${variables})` });
	}
	if (type === 'BODY') {
		const trimmed = text.trim();
		const edges = [/^\{\{[^{}]*\}\}/.test(trimmed) && 'start', /\{\{[^{}]*\}\}$/.test(trimmed) && 'end'].filter(Boolean);
		if (edges.length) {
			violations.push({
				component: 'BODY',
				rule: 'body-variable-at-edge',
				message: `text must not ${edges.join(' or ')} with a variable: put words before and after each variable`,
			});
		}
	}
}

/** A button's own fields, and a URL button's url of at most 2,048 characters. */
export function checkButtonFields(label: string, button: Record<string, unknown>, violations: TemplateViolation[]): void {
	checkFields('BUTTONS', button, BUTTON_FIELDS, violations, `${label}: `);
	if (typeof button.url === 'string' && button.url.length > INPUT_LIMITS.maxUrlCharacters) {
		violations.push({ component: 'BUTTONS', rule: 'button-url-length', message: `${label}: url ${urlProblem(button.url)}` });
	}
}

/**
 * The components as the service takes them: component, header format and button types upper-cased
 * (the checks read them case-insensitively, the service does not: `"type": "body"` got a 422).
 */
export function canonicalComponents(components: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
	const upper = (value: unknown) => (typeof value === 'string' ? value.trim().toUpperCase() : value);
	return components.map((component) => {
		const copy: Record<string, unknown> = { ...component, type: upper(component.type) };
		if (component.format !== undefined) copy.format = upper(component.format);
		if (Array.isArray(component.buttons)) {
			copy.buttons = component.buttons.map((button: unknown) =>
				button && typeof button === 'object' ? { ...(button as Record<string, unknown>), type: upper((button as Record<string, unknown>).type) } : button,
			);
		}
		return copy;
	});
}
