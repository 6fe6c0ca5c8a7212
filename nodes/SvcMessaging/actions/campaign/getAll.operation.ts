import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mapItems } from '../../helpers/itemResults';
import { failItem } from '../../helpers/validation';
import { apiRequest, type SvcContext } from '../../transport/request';
import { SERVICE } from '../../transport/service';
import { returnAllOrLimit } from '../common.descriptions';

const STATUSES = ['CANCELLED', 'COMPLETED', 'DRAFT', 'FAILED', 'PAUSED', 'SCHEDULED', 'SENDING'];

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				description:
					'Only campaigns in these statuses. The service has no status filter: pages are read (most recent first) until Limit campaigns match.',
				options: STATUSES.map((status) => ({ name: status.charAt(0) + status.slice(1).toLowerCase(), value: status })),
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['getAll'] } }, properties);

export interface CampaignPage {
	data: IDataObject[];
	page: number;
	totalPages: number;
}

/** One page of `GET /api/sms/campaigns` (most recent first): `{ data, total, page, limit, totalPages }`. */
export async function campaignPage(ctx: SvcContext, page: number, limit: number, itemIndex?: number): Promise<CampaignPage> {
	const body = (await apiRequest.call(ctx, {
		method: 'GET',
		path: SERVICE.paths.campaigns,
		auth: 'account',
		qs: { page, limit },
		itemIndex,
	})) as IDataObject;
	const data = Array.isArray(body?.data) ? (body.data as IDataObject[]) : [];
	const totalPages = Number(body?.totalPages);
	return {
		data,
		page,
		// Without a usable totalPages, a short page is the last one.
		totalPages: Number.isFinite(totalPages) ? totalPages : data.length < limit ? page : page + 1,
	};
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const returnAll = this.getNodeParameter('returnAll', i) as boolean;
		const limit = returnAll ? Infinity : Math.floor(Number(this.getNodeParameter('limit', i)));
		if (!(limit >= 1)) failItem(this.getNode(), i, '"Limit" must be a whole number of 1 or more');
		const statuses = ((this.getNodeParameter('filters', i, {}) as IDataObject).status as string[] | undefined) ?? [];
		// Page size = Limit (up to the service's maximum), so a Limit never loads more pages than it needs.
		// With a status filter the number of pages needed is unknown: full pages then take the fewest requests.
		const pageSize = statuses.length ? SERVICE.maxPageSize : Math.min(limit, SERVICE.maxPageSize);
		const seen = new Set<unknown>();
		const results: IDataObject[] = [];
		for (let page = 1; results.length < limit; page++) {
			const { data, totalPages } = await campaignPage(this, page, pageSize, i);
			for (const campaign of data) {
				// A campaign created while paging shifts the pages by one: skip what was already returned.
				if (seen.has(campaign.id)) continue;
				seen.add(campaign.id);
				if (statuses.length === 0 || statuses.includes(String(campaign.status))) results.push(campaign);
			}
			if (data.length === 0 || page >= totalPages) break;
		}
		return results.slice(0, limit);
	});
}
