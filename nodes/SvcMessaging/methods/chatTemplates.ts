import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';

import { templateSlots } from '../helpers/templateRules';
import { apiRequest, unwrap, type SvcContext } from '../transport/request';
import { SERVICE } from '../transport/service';

export interface TemplatePage {
	data: IDataObject[];
	page: number;
	totalPages: number;
	total: number;
}

/** One page of `GET /api/chat/templates` (raw body: `{ success, data, pagination }`). */
export async function fetchTemplatePage(ctx: SvcContext, qs: IDataObject, itemIndex?: number): Promise<TemplatePage> {
	const body = (await apiRequest.call(ctx, {
		method: 'GET',
		path: SERVICE.paths.chatTemplates,
		auth: 'apiKey',
		qs,
		itemIndex,
	})) as IDataObject;
	const data = Array.isArray(body?.data) ? (body.data as IDataObject[]) : [];
	const pagination = (body?.pagination ?? {}) as IDataObject;
	const page = Number(pagination.page) || Number(qs.page) || 1;
	return {
		data,
		page,
		totalPages: Number.isFinite(Number(pagination.totalPages)) ? Number(pagination.totalPages) : page,
		total: Number(pagination.total) || data.length,
	};
}

/** `GET /api/chat/templates/:name`. */
export async function fetchTemplate(ctx: SvcContext, name: string, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(
		await apiRequest.call(ctx, { method: 'GET', path: SERVICE.paths.chatTemplate(name), auth: 'apiKey', itemIndex }),
	);
}

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
	const results: INodeListSearchItems[] = [];
	let page = Math.max(1, Number(paginationToken) || 1);
	let more = false;
	for (;;) {
		const qs: IDataObject = { page, limit: SERVICE.maxPageSize };
		if (approvedOnly) qs.status = 'APPROVED';
		const current = await fetchTemplatePage(ctx, qs);
		for (const t of current.data) {
			const name = String(t.name ?? '');
			const language = String(t.language ?? '');
			const category = String(t.category ?? '');
			if (needle && !`${name} ${language} ${category}`.toLowerCase().includes(needle)) continue;
			const details = [language, category.toLowerCase(), approvedOnly ? '' : String(t.status ?? '').toLowerCase()].filter(Boolean);
			results.push({ name: `${name} (${details.join(', ')})`, value: name });
		}
		more = current.page < current.totalPages && current.data.length > 0;
		if (!more || !needle || results.length >= MIN_RESULTS_PER_CALL) break;
		page++;
	}
	return { results, paginationToken: more ? String(page + 1) : undefined };
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

/** The resource mapper's fields: one per variable of the chosen template's HEADER and BODY. */
export async function getTemplateVariables(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const name = String(this.getNodeParameter('template', undefined, { extractValue: true }) ?? '').trim();
	if (!name) return { fields: [], emptyFieldsNotice: 'Choose a template first' };
	const template = await fetchTemplate(this, name);
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
	const fields = [
		...ids.header.map((id, k) => field(id, `Header {{${k + 1}}}`)),
		...ids.body.map((id, k) => field(id, `Body {{${k + 1}}}`)),
	];
	return fields.length ? { fields } : { fields, emptyFieldsNotice: `Template "${name}" has no variables` };
}

export const chatTemplateListSearch = { searchChatTemplates, searchApprovedChatTemplates };
export const resourceMapping = { getTemplateVariables };
