import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';

import { getTemplate, listTemplatesPage } from '../api/chat';
import { readPages } from '../api/pages';
import { textOf, upper, variableFieldIds, type TemplateComponent } from '../rules/templateText';
import { SERVICE } from '../transport/service';
import { variableLabel } from './variableLabels';

/** Enough matches to fill the editor's list before asking for the next page. */
const MIN_RESULTS_PER_CALL = 20;

/**
 * The editor's list: one page of 100 templates per call, and a paginationToken (the next page) as
 * long as there are more, so every template of the account can be reached. The service has no
 * name search, so a filter is applied here; with a filter, pages are read until enough match.
 */
async function searchTemplates(
	ctx: ILoadOptionsFunctions,
	filter: string | undefined,
	paginationToken: string | undefined,
	approvedOnly: boolean,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const qs: IDataObject = approvedOnly ? { status: 'APPROVED' } : {};
	const label = (t: IDataObject) => {
		const details = [String(t.language ?? ''), String(t.category ?? '').toLowerCase(), approvedOnly ? '' : String(t.status ?? '').toLowerCase()];
		return `${String(t.name ?? '')} (${details.filter(Boolean).join(', ')})`;
	};
	const { rows, next } = await readPages(async (page, limit) => await listTemplatesPage(ctx, { page, limit, ...qs }), {
		from: Number(paginationToken) || 1,
		pageSize: SERVICE.maxPageSize,
		keep: (t) => !needle || `${String(t.name ?? '')} ${String(t.language ?? '')} ${String(t.category ?? '')}`.toLowerCase().includes(needle),
		enough: (kept) => !needle || kept.length >= MIN_RESULTS_PER_CALL,
	});
	const results: INodeListSearchItems[] = rows.map((t) => ({ name: label(t), value: String(t.name ?? '') }));
	return { results, paginationToken: next === undefined ? undefined : String(next) };
}

export async function searchChatTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchTemplates(this, filter, paginationToken, false);
}

export async function searchApprovedChatTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchTemplates(this, filter, paginationToken, true);
}

/**
 * The resource mapper's fields: one per variable of the chosen template's HEADER and BODY, each
 * labelled with the template's text around it.
 */
export async function getTemplateVariables(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const name = String(this.getNodeParameter('template', undefined, { extractValue: true }) ?? '').trim();
	if (!name) return { fields: [], emptyFieldsNotice: 'Choose a template first' };
	const template = await getTemplate(this, name);
	const ids = variableFieldIds(template.components);
	const field = (id: string, displayName: string): ResourceMapperField => ({
		id,
		displayName,
		required: true,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: 'string',
	});
	const components = (Array.isArray(template.components) ? template.components : []) as TemplateComponent[];
	const textOfPart = (type: string) => textOf(components.find((c) => c && typeof c === 'object' && upper(c.type) === type)?.text);
	// Field k is variable {{k + 1}} (variableFieldIds; the platform numbers variables without gaps).
	const label = (part: 'Header' | 'Body', k: number) => variableLabel(part, k + 1, textOfPart(part.toUpperCase()));
	const fields = [...ids.header.map((id, k) => field(id, label('Header', k))), ...ids.body.map((id, k) => field(id, label('Body', k)))];
	return fields.length ? { fields } : { fields, emptyFieldsNotice: `Template "${name}" has no variables` };
}

export const chatTemplateListSearch = { searchChatTemplates, searchApprovedChatTemplates };
export const resourceMapping = { getTemplateVariables };
