import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { listCampaignsPage } from '../api/campaigns';
import { readPages } from '../api/pages';
import { SERVICE } from '../transport/service';

/** With a filter, pages without a match are skipped, up to this many per call. */
const MAX_PAGES_PER_SEARCH = 10;
/** With a filter, a call stops reading pages once it has this many matches. */
const ENOUGH_MATCHES = 20;

/**
 * Campaign picker: most recent first (the service's order), "name · STATUS · #id", filtered by name
 * or ID. The service has no search parameter, so the filter is applied to each page read; the
 * pagination token is the next page number.
 */
export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const { rows, next } = await readPages(async (page, size) => await listCampaignsPage(this, page, size), {
		from: Number(paginationToken) || 1,
		pageSize: SERVICE.maxPageSize,
		keep: (campaign) => !needle || matches(campaign, needle),
		enough: (kept) => !needle || kept.length >= ENOUGH_MATCHES,
		maxPages: MAX_PAGES_PER_SEARCH,
	});
	const results: INodeListSearchItems[] = rows.map((campaign) => ({
		name: `${String(campaign.name ?? '(no name)')} · ${String(campaign.status ?? '?')} · #${String(campaign.id)}`,
		value: String(campaign.id),
	}));
	return next === undefined ? { results } : { results, paginationToken: String(next) };
}

function matches(campaign: IDataObject, needle: string): boolean {
	return String(campaign.name ?? '').toLowerCase().includes(needle) || String(campaign.id) === needle.replace(/^#/, '');
}
