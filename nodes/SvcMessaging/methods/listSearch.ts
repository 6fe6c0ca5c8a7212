import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSenderIds } from '../api/sms';
import { AUTOMATIC_SENDER } from '../sending/policies/senderByCountry';

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

/** The sender IDs, after "Automatic (by Recipient's Country)" (SMS sends: sending/policies/senderByCountry.ts). */
export async function searchSenderIdsOrAutomatic(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const { results } = await searchSenderIds.call(this, filter);
	const automatic = { name: "Automatic (by Recipient's Country)", value: AUTOMATIC_SENDER };
	const shown = !filter || automatic.name.toLowerCase().includes(filter.toLowerCase());
	return { results: shown ? [automatic, ...results] : results };
}

export { searchCampaigns } from './campaignSearch';
