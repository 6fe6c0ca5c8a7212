import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest, unwrap } from '../transport/request';
import { SERVICE } from '../transport/service';

export async function searchSenderIds(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const senderIds = unwrap<IDataObject[]>(await apiRequest.call(this, { method: 'GET', path: SERVICE.paths.senderIds, auth: 'apiKey' }));
	const needle = (filter ?? '').toLowerCase();
	return {
		results: (Array.isArray(senderIds) ? senderIds : [])
			.filter((s) => String(s.senderId).toLowerCase().includes(needle))
			.map((s) => ({
				name: `${String(s.senderId)} (${String(s.type ?? '').toLowerCase() || 'sender'}, ${((s.countries as string[]) ?? []).join(' ')})`,
				value: String(s.senderId),
			})),
	};
}

export { searchCampaigns } from './campaignSearch';
