import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSenderIds } from '../api/sms';

export async function searchSenderIds(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const senderIds = await listSenderIds(this);
	const needle = (filter ?? '').toLowerCase();
	return {
		results: senderIds
			.filter((s) => String(s.senderId).toLowerCase().includes(needle))
			.map((s) => ({
				name: `${String(s.senderId)} (${String(s.type ?? '').toLowerCase() || 'sender'}, ${((s.countries as string[]) ?? []).join(' ')})`,
				value: String(s.senderId),
			})),
	};
}

export { searchCampaigns } from './campaignSearch';
