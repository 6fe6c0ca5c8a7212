import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getTemplate } from '../../api/chat';
import { checkField, failItem } from '../../rules/fields';
import { pathId, variableValue } from '../../rules/schemas';
import { normalizeLanguageCode, variableFieldIds } from '../../rules/templateText';
import { serviceErrorCode } from '../../transport/errors';
import { wrapError } from '../../transport/errors';

/** Template name → its lookup, shared by the items of one execution (part of SendCache). */
export type TemplateCache = Map<string, Promise<IDataObject>>;

function variableLabel(id: string): string {
	const [part, n] = id.split('_');
	return `${part === 'header' ? 'Header' : 'Body'} {{${n}}}`;
}

async function templateOf(ctx: IExecuteFunctions, templates: TemplateCache, name: string, i: number): Promise<IDataObject> {
	if (!templates.has(name)) {
		const lookup = getTemplate(ctx, name, i);
		lookup.catch(() => {});
		templates.set(name, lookup);
	}
	try {
		return await templates.get(name)!;
	} catch (error) {
		if (serviceErrorCode(error) === 'NOT_FOUND') {
			failItem(ctx.getNode(), i, `Template "${name}" does not exist in this account (names are case-sensitive)`);
		}
		throw wrapError(ctx, error, i);
	}
}

/** Item `i`'s `template` object: an approved template, its language and exactly its variables, checked. */
export async function templateMessage(ctx: IExecuteFunctions, templates: TemplateCache, i: number): Promise<IDataObject> {
	const node = ctx.getNode();
	const rawName = ctx.getNodeParameter('template', i, '', { extractValue: true }) as unknown;
	if (rawName === undefined || rawName === null || String(rawName).trim() === '') {
		failItem(node, i, '"Template" must not be empty: pick an approved template or type its name');
	}
	const name = checkField(node, pathId, rawName, i, 'Template');
	// The values mapped in the resource mapper are text (numbers read as their digits), checked before the template is looked up.
	const values = (ctx.getNodeParameter('templateVariables.value', i, {}) ?? {}) as IDataObject;
	for (const [id, value] of Object.entries(values)) {
		if (value !== undefined && value !== null && value !== '') checkField(node, variableValue, value, i, `Template Variables → ${variableLabel(id)}`);
	}
	const template = await templateOf(ctx, templates, name, i);
	if (template.status !== 'APPROVED') {
		const reason = template.rejectedReason ? ` (${String(template.rejectedReason)})` : '';
		failItem(
			node,
			i,
			`Template "${name}" is ${String(template.status ?? 'not approved')}${reason}: only APPROVED templates can be sent`,
			template.status === 'PENDING' ? 'Review takes a while after Create; "Chat Template → Get" shows the status.' : undefined,
		);
	}
	// The message names the language exactly as the template has it.
	const templateLanguage = String(template.language ?? '');
	const requested = String(ctx.getNodeParameter('templateLanguage', i, '') ?? '').trim();
	if (requested) {
		const language = normalizeLanguageCode(requested);
		if (!language) failItem(node, i, `"Template Language" must be a language code such as en, sw or en_US (got "${requested}")`);
		if (language !== (normalizeLanguageCode(templateLanguage) ?? templateLanguage)) {
			failItem(node, i, `"Template Language" is ${language}, but template "${name}" is in ${templateLanguage}`);
		}
	}

	// The values mapped in the resource mapper must be exactly the template's variables.
	const ids = variableFieldIds(template.components);
	const expected = [...ids.header, ...ids.body];
	const filled = (id: string) => values[id] !== undefined && values[id] !== null && String(values[id]) !== '';
	const extra = Object.keys(values).filter((id) => filled(id) && !expected.includes(id));
	const missing = expected.filter((id) => !filled(id));
	if (extra.length || missing.length) {
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

	const components: IDataObject[] = [];
	if (ids.header.length) {
		components.push({ type: 'header', parameters: ids.header.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	if (ids.body.length) {
		components.push({ type: 'body', parameters: ids.body.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	return { name, language: { code: templateLanguage }, components };
}
