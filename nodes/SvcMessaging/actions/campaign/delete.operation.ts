import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteCampaign } from '../../api/campaigns';
import { campaignIdLocator, readCampaignId } from './campaignFields';
import { campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to delete. A campaign that is being sent (SENDING) cannot be deleted.'),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['delete'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const id = readCampaignId(this, i);
	const answer: IDataObject = await campaignRequest(this, id, 'delete', i, async () =>
		await deleteCampaign(this, id, i),
	);
	// The service answers { id, deleted: true }; the ID is the campaign's number as the service reports it.
	return { deleted: answer?.deleted !== false, id: answer?.id ?? Number(id) };
}
