/**
 * The chat template structure rules of the spec, as pure functions: every rule is checked before a
 * template is sent to the service, and each violation names its component and its rule.
 */
import type { INode } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { failItem } from './fields';
import { checkButtonFields, checkComponent } from './templateComponents';
import { characters } from './schemas';
import {
	BUTTON_TYPES,
	HEADER_FORMATS,
	placeholdersIn,
	TEMPLATE_LIMITS,
	textOf,
	upper,
	variableNumbers,
	type ButtonType,
	type TemplateButton,
	type TemplateComponent,
	type TemplateViolation,
} from './templateText';

function checkVariables(component: string, text: string, violations: TemplateViolation[]) {
	const { malformed } = placeholdersIn(text);
	if (malformed.length) {
		violations.push({
			component,
			rule: 'variable-format',
			message: `variables must be numbered like {{1}}, {{2}} (found ${malformed.slice(0, 3).join(', ')})`,
		});
	}
	const numbers = variableNumbers(text);
	const gaps = numbers.filter((n, i) => n !== i + 1);
	if (gaps.length) {
		const missing: number[] = [];
		for (let n = 1; n <= numbers[numbers.length - 1]; n++) if (!numbers.includes(n)) missing.push(n);
		violations.push({
			component,
			rule: 'variable-sequence',
			message: `variables must be numbered from {{1}} without gaps (missing ${missing
				.slice(0, 5)
				.map((n) => `{{${n}}}`)
				.join(', ')}${missing.length > 5 ? ', …' : ''})`,
		});
	}
	return numbers;
}

/**
 * Checks a template's components against every structure rule of the spec; returns all violations
 * (empty when the template may be sent).
 */
export function checkTemplateStructure(category: string, components: unknown): TemplateViolation[] {
	const violations: TemplateViolation[] = [];
	if (!Array.isArray(components)) {
		return [{ component: 'TEMPLATE', rule: 'components-list', message: 'components must be a list (JSON array)' }];
	}
	const byType = new Map<string, TemplateComponent[]>();
	components.forEach((raw, index) => {
		if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
			violations.push({ component: `component ${index + 1}`, rule: 'component-shape', message: 'must be an object with a "type"' });
			return;
		}
		const component = raw as TemplateComponent;
		const type = upper(component.type);
		if (!['HEADER', 'BODY', 'FOOTER', 'BUTTONS'].includes(type)) {
			violations.push({
				component: `component ${index + 1}`,
				rule: 'component-type',
				message: `type must be HEADER, BODY, FOOTER or BUTTONS (got ${JSON.stringify(component.type ?? null)})`,
			});
			return;
		}
		checkComponent(type, component, violations);
		byType.set(type, [...(byType.get(type) ?? []), component]);
	});
	for (const [type, list] of byType) {
		if (list.length > 1) {
			violations.push({ component: type, rule: 'single-component', message: `a template has at most one ${type} component (found ${list.length})` });
		}
	}

	// BODY: required; ≤ 1024 characters; ≤ 25 variables numbered from 1 without gaps.
	const body = byType.get('BODY')?.[0];
	const bodyText = textOf(body?.text) ?? '';
	if (!body || bodyText.trim() === '') {
		violations.push({ component: 'BODY', rule: 'body-required', message: 'every template needs a BODY with text' });
	} else {
		const length = characters(bodyText);
		if (length > TEMPLATE_LIMITS.bodyMaxCharacters) {
			violations.push({
				component: 'BODY',
				rule: 'body-max-length',
				message: `text must be at most ${TEMPLATE_LIMITS.bodyMaxCharacters} characters (it has ${length})`,
			});
		}
		const numbers = checkVariables('BODY', bodyText, violations);
		if (numbers.length > TEMPLATE_LIMITS.bodyMaxVariables) {
			violations.push({
				component: 'BODY',
				rule: 'body-max-variables',
				message: `at most ${TEMPLATE_LIMITS.bodyMaxVariables} variables (it has ${numbers.length})`,
			});
		}
	}

	// HEADER: optional; format TEXT (text ≤ 60 characters), IMAGE, DOCUMENT or VIDEO.
	const header = byType.get('HEADER')?.[0];
	if (header) {
		const format = upper(header.format);
		if (!(HEADER_FORMATS as readonly string[]).includes(format)) {
			violations.push({
				component: 'HEADER',
				rule: 'header-format',
				message: `format must be TEXT, IMAGE, DOCUMENT or VIDEO (got ${header.format === undefined ? 'none' : JSON.stringify(header.format)})`,
			});
		} else if (format === 'TEXT') {
			const text = textOf(header.text) ?? '';
			if (text.trim() === '') {
				violations.push({ component: 'HEADER', rule: 'header-text-required', message: 'a TEXT header needs text' });
			} else {
				const length = characters(text);
				if (length > TEMPLATE_LIMITS.headerTextMaxCharacters) {
					violations.push({
						component: 'HEADER',
						rule: 'header-max-length',
						message: `text must be at most ${TEMPLATE_LIMITS.headerTextMaxCharacters} characters (it has ${length})`,
					});
				}
				checkVariables('HEADER', text, violations);
			}
		}
	}

	// FOOTER: optional; text ≤ 60 characters.
	const footer = byType.get('FOOTER')?.[0];
	if (footer) {
		const text = textOf(footer.text) ?? '';
		const length = characters(text);
		if (text.trim() === '') {
			violations.push({ component: 'FOOTER', rule: 'footer-text-required', message: 'a FOOTER needs text' });
		} else if (length > TEMPLATE_LIMITS.footerMaxCharacters) {
			violations.push({
				component: 'FOOTER',
				rule: 'footer-max-length',
				message: `text must be at most ${TEMPLATE_LIMITS.footerMaxCharacters} characters (it has ${length})`,
			});
		}
	}

	// BUTTONS: caps per type; COPY_CODE and OTP only in AUTHENTICATION templates.
	const buttonsComponent = byType.get('BUTTONS')?.[0];
	if (buttonsComponent) checkButtons(upper(category), buttonsComponent.buttons, violations);
	return violations;
}

function checkButtons(category: string, buttons: unknown, violations: TemplateViolation[]) {
	if (!Array.isArray(buttons) || buttons.length === 0) {
		violations.push({ component: 'BUTTONS', rule: 'buttons-list', message: 'needs a list of at least one button' });
		return;
	}
	const counts = new Map<string, number>();
	buttons.forEach((raw, index) => {
		const where = 'BUTTONS';
		const button = (raw && typeof raw === 'object' ? raw : {}) as TemplateButton;
		const type = upper(button.type);
		const label = `button ${index + 1}`;
		if (raw && typeof raw === 'object') checkButtonFields(label, raw as TemplateButton, violations);
		if (!(BUTTON_TYPES as readonly string[]).includes(type)) {
			violations.push({
				component: where,
				rule: 'button-type',
				message: `${label}: type must be ${BUTTON_TYPES.join(', ')} (got ${JSON.stringify(button.type ?? null)})`,
			});
			return;
		}
		counts.set(type, (counts.get(type) ?? 0) + 1);
		// Copy Code and OTP buttons have a platform label; the others show their text.
		const needsText = !TEMPLATE_LIMITS.authenticationOnlyButtons.includes(type as ButtonType);
		if (needsText && (typeof button.text !== 'string' || button.text.trim() === '')) {
			violations.push({ component: where, rule: 'button-text', message: `${label} (${type}): needs a text` });
		}
		if (type === 'URL' && (typeof button.url !== 'string' || !/^https?:\/\/\S+$/i.test(button.url))) {
			violations.push({
				component: where,
				rule: 'button-url',
				message: `${label} (URL): needs a url starting with https:// (or http://)`,
			});
		}
		if (type === 'PHONE_NUMBER' && (typeof button.phone_number !== 'string' || !/^\+[1-9]\d{6,14}$/.test(button.phone_number))) {
			violations.push({
				component: where,
				rule: 'button-phone-number',
				message: `${label} (PHONE_NUMBER): needs a phone_number in E.164 format, e.g. +254712345678`,
			});
		}
	});
	for (const type of BUTTON_TYPES) {
		const count = counts.get(type) ?? 0;
		const cap = TEMPLATE_LIMITS.buttonCaps[type];
		if (count > cap) {
			violations.push({
				component: 'BUTTONS',
				rule: 'button-cap',
				message: `at most ${cap} ${type} button${cap === 1 ? '' : 's'} per template (found ${count})`,
			});
		}
		if (count > 0 && TEMPLATE_LIMITS.authenticationOnlyButtons.includes(type) && category !== 'AUTHENTICATION') {
			violations.push({
				component: 'BUTTONS',
				rule: 'authentication-only-button',
				message: `${type} buttons are allowed only in AUTHENTICATION templates (this one is ${category || 'uncategorised'})`,
			});
		}
	}
}

/** Item `i`'s template must meet every structure rule: one error lists every violation. */
export function checkTemplate(node: INode, i: number, name: string, category: string, components: unknown): void {
	const violations = checkTemplateStructure(category, components);
	if (violations.length === 0) return;
	failItem(node, i, `Template "${name}" breaks ${violations.length} structure rule${violations.length === 1 ? '' : 's'}: ${describeViolations(violations)}`);
}

/** "Components (JSON)": the array, or a whole template object holding one. */
export function componentsOfJson(node: INode, i: number, raw: unknown): unknown {
	let value: unknown = raw;
	if (typeof raw === 'string') {
		try {
			value = jsonParse(raw);
		} catch (error) {
			failItem(node, i, `"Components (JSON)" is not valid JSON: ${(error as Error).message}`);
		}
	}
	// Also accept a whole template object: { name, category, language, components: [...] }.
	if (value && typeof value === 'object' && !Array.isArray(value) && 'components' in value) {
		return (value as { components: unknown }).components;
	}
	return value;
}

/** One line per violation: `BODY: text must be at most 1024 characters (it has 1030)`. */
export function describeViolations(violations: TemplateViolation[]): string {
	return violations.map((v) => `${v.component}: ${v.message}`).join('; ');
}

