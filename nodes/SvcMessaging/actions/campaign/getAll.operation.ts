import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listCampaignsPage } from '../../api/campaigns';
import { readPages } from '../../api/pages';
import { checkLimit } from '../../rules/fields';
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

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? Infinity : checkLimit(this.getNode(), this.getNodeParameter('limit', i), i);
	const statuses = ((this.getNodeParameter('filters', i, {}) as IDataObject).status as string[] | undefined) ?? [];
	// Page size = Limit (up to the service's maximum), so a Limit never loads more pages than it needs.
	// With a status filter the number of pages needed is unknown: full pages then take the fewest requests.
	const pageSize = statuses.length ? SERVICE.maxPageSize : Math.min(limit, SERVICE.maxPageSize);
	const { rows } = await readPages(async (page, size) => await listCampaignsPage(this, page, size, i), {
		pageSize,
		// A campaign created while paging shifts the pages by one: skip what was already returned.
		idOf: (campaign) => campaign.id,
		keep: (campaign) => statuses.length === 0 || statuses.includes(String(campaign.status)),
		enough: (kept) => kept.length >= limit,
	});
	return rows.slice(0, limit);
}
