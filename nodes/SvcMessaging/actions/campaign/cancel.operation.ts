import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { cancelCampaign } from '../../api/campaigns';
import { campaignIdLocator, readCampaignId } from './campaignFields';
import { campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to cancel. Only DRAFT and SCHEDULED campaigns can be cancelled.'),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['cancel'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const id = readCampaignId(this, i);
	// No request body. The service answers with the campaign, now CANCELLED.
	const cancelled: IDataObject = await campaignRequest(this, id, 'cancel', i, async () =>
		await cancelCampaign(this, id, i),
	);
	return cancelled;
}
