import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { campaignPage } from '../actions/campaign/getAll.operation';
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
	let page = Math.max(1, Number(paginationToken) || 1);
	const results: INodeListSearchItems[] = [];
	for (let read = 0; ; read++) {
		const { data, totalPages } = await campaignPage(this, page, SERVICE.maxPageSize);
		for (const campaign of data) {
			if (needle && !matches(campaign, needle)) continue;
			results.push({
				name: `${String(campaign.name ?? '(no name)')} · ${String(campaign.status ?? '?')} · #${String(campaign.id)}`,
				value: String(campaign.id),
			});
		}
		const more = data.length > 0 && page < totalPages;
		if (!more) return { results };
		page++;
		if (!needle || results.length >= ENOUGH_MATCHES || read + 1 >= MAX_PAGES_PER_SEARCH) {
			return { results, paginationToken: String(page) };
		}
	}
}

function matches(campaign: IDataObject, needle: string): boolean {
	return String(campaign.name ?? '').toLowerCase().includes(needle) || String(campaign.id) === needle.replace(/^#/, '');
}
