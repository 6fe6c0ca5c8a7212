import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteCampaign } from '../../api/campaigns';
import { mapItems } from '../executor';
import { campaignIdLocator, readCampaignId } from './campaignFields';
import { campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to delete. A campaign that is being sent (SENDING) cannot be deleted.'),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['delete'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const id = readCampaignId(this, i);
		const answer: IDataObject = await campaignRequest(this, id, 'delete', i, async () =>
			await deleteCampaign(this, id, i),
		);
		// The service answers { id, deleted: true }; the ID is the campaign's number as the service reports it.
		return { deleted: answer?.deleted !== false, id: answer?.id ?? Number(id) };
	});
}
