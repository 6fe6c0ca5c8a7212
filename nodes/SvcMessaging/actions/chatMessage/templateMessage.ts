import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getTemplate } from '../../api/chat';
import {
	checkApproved,
	checkMappedValues,
	checkRequestedLanguage,
	checkTemplateName,
	checkVariableValues,
	refuseUnknownTemplate,
} from '../../rules/templateMessage';
import { filledTemplateText, variableFieldIds } from '../../rules/templateText';
import { serviceErrorCode, wrapError } from '../../transport/errors';

/** Template name → its lookup, shared by the items of one execution (part of SendCache). */
export type TemplateCache = Map<string, Promise<IDataObject>>;

async function templateOf(ctx: IExecuteFunctions, templates: TemplateCache, name: string, i: number): Promise<IDataObject> {
	if (!templates.has(name)) {
		const lookup = getTemplate(ctx, name, i);
		lookup.catch(() => {});
		templates.set(name, lookup);
	}
	try {
		return await templates.get(name)!;
	} catch (error) {
		if (serviceErrorCode(error) === 'NOT_FOUND') refuseUnknownTemplate(ctx.getNode(), i, name);
		throw wrapError(ctx, error, i);
	}
}

/**
 * Item `i`'s `template` object: an approved template, its language and exactly its variables,
 * checked; and the text its recipient reads (for the output).
 */
export async function templateMessage(ctx: IExecuteFunctions, templates: TemplateCache, i: number): Promise<{ template: IDataObject; text: string }> {
	const node = ctx.getNode();
	const name = checkTemplateName(
		node,
		i,
		ctx.getNodeParameter('template', i, '', { extractValue: true }),
		'"Template" must not be empty: pick an approved template or type its name',
	);
	// Checked before the template is looked up: a bad value costs no request.
	const values = (ctx.getNodeParameter('templateVariables.value', i, {}) ?? {}) as IDataObject;
	checkVariableValues(node, i, values);
	const template = await templateOf(ctx, templates, name, i);
	checkApproved(node, i, name, template);
	// The message names the language exactly as the template has it.
	const templateLanguage = String(template.language ?? '');
	checkRequestedLanguage(node, i, name, String(ctx.getNodeParameter('templateLanguage', i, '') ?? '').trim(), templateLanguage);
	const ids = variableFieldIds(template.components);
	checkMappedValues(node, i, name, [...ids.header, ...ids.body], values);

	const components: IDataObject[] = [];
	if (ids.header.length) {
		components.push({ type: 'header', parameters: ids.header.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	if (ids.body.length) {
		components.push({ type: 'body', parameters: ids.body.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	return { template: { name, language: { code: templateLanguage }, components }, text: filledTemplateText(template.components, values) };
}
