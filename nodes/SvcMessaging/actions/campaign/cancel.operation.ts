import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mapItems } from '../../helpers/itemResults';
import { apiRequest } from '../../transport/request';
import { SERVICE } from '../../transport/service';
import { campaignIdLocator, readCampaignId } from './campaignFields';
import { campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to cancel. Only DRAFT and SCHEDULED campaigns can be cancelled.'),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['cancel'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const id = readCampaignId(this, i);
		// No request body. The service answers with the campaign, now CANCELLED.
		const cancelled: IDataObject = await campaignRequest(this, id, 'cancel', i, async () =>
			(await apiRequest.call(this, { method: 'POST', path: `${SERVICE.paths.campaign(id)}/cancel`, auth: 'account', itemIndex: i })) as IDataObject,
		);
		return cancelled;
	});
}
