import type { IDataObject, INode } from 'n8n-workflow';

import { INPUT_LIMITS } from '../transport/service';
import { checkField, failItem } from './fields';
import { pathIdOf, variableValue } from './schemas';
import { normalizeLanguageCode } from './templateText';

/** The rules a chat message from a template meets: its name, its values and the template itself. */

export function variableLabel(id: string): string {
	const [part, n] = id.split('_');
	return `${part === 'header' ? 'Header' : 'Body'} {{${n}}}`;
}

const MAX_NAME = INPUT_LIMITS.maxTemplateNameCharacters;

/** A template name as Get, Delete and messages address it: safe as a path segment, of a template's length. */
const existingName = pathIdOf(MAX_NAME);

/**
 * The chat platform's naming rule, applied at Create: every name it lets through is also an
 * existingName, so a template created here can always be fetched, sent and deleted.
 */
export const newTemplateName = pathIdOf(MAX_NAME).refine((t) => /^[a-z0-9_]+$/.test(t), {
	message: `must be lowercase letters a–z, digits 0–9 and underscores only (the chat platform's naming rule, e.g. order_update_2), at most ${MAX_NAME} characters`,
});

/** A template name from a picker or typed: not empty, and safe as a path segment. */
export function checkTemplateName(node: INode, i: number, raw: unknown, emptyProblem: string): string {
	if (raw === undefined || raw === null || String(raw).trim() === '') failItem(node, i, emptyProblem);
	return checkField(node, existingName, raw, i, 'Template');
}

/** The values mapped in the resource mapper are text (numbers read as their digits). */
export function checkVariableValues(node: INode, i: number, values: IDataObject): void {
	for (const [id, value] of Object.entries(values)) {
		if (value !== undefined && value !== null && value !== '') checkField(node, variableValue, value, i, `Template Variables → ${variableLabel(id)}`);
	}
}

export function refuseUnknownTemplate(node: INode, i: number, name: string): never {
	return failItem(
		node,
		i,
		`Template "${name}" does not exist in this account (names are case-sensitive)`,
		undefined,
		'Create it with Chat Template → Create (or in the dashboard) and wait for its approval, or pick an approved template of this account (Chat Template → Get Many lists them).',
	);
}

/** Only APPROVED templates can be sent. */
export function checkApproved(node: INode, i: number, name: string, template: IDataObject): void {
	if (template.status === 'APPROVED') return;
	const reason = template.rejectedReason ? ` (${String(template.rejectedReason)})` : '';
	failItem(
		node,
		i,
		`Template "${name}" is ${String(template.status ?? 'not approved')}${reason}: only APPROVED templates can be sent`,
		undefined,
		template.status === 'PENDING' ? 'Review takes a while after Create; "Chat Template → Get" shows the status.' : undefined,
	);
}

/** "Template Language", when set, must be a language code and the template's own language. */
export function checkRequestedLanguage(node: INode, i: number, name: string, requested: string, templateLanguage: string): void {
	if (!requested) return;
	const language = normalizeLanguageCode(requested);
	if (!language) failItem(node, i, `"Template Language" must be a language code such as en, sw or en_US (got "${requested}")`);
	if (language !== (normalizeLanguageCode(templateLanguage) ?? templateLanguage)) {
		failItem(node, i, `"Template Language" is ${language}, but template "${name}" is in ${templateLanguage}`);
	}
}

/** The values mapped must be exactly the template's variables. */
export function checkMappedValues(node: INode, i: number, name: string, expected: string[], values: IDataObject): void {
	const filled = (id: string) => values[id] !== undefined && values[id] !== null && String(values[id]) !== '';
	const extra = Object.keys(values).filter((id) => filled(id) && !expected.includes(id));
	const missing = expected.filter((id) => !filled(id));
	if (!extra.length && !missing.length) return;
	const given = Object.keys(values).filter(filled).length;
	const reason = extra.length
		? `${extra.map(variableLabel).join(', ')} ${extra.length === 1 ? 'is' : 'are'} not in the template (refresh the field list of "Template Variables")`
		: `${missing.map(variableLabel).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value`;
	failItem(
		node,
		i,
		`Template "${name}" has ${expected.length} variable${expected.length === 1 ? '' : 's'} but ${given} value${given === 1 ? ' was' : 's were'} mapped: ${reason}`,
	);
}
