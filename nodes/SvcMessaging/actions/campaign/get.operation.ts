import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCampaign } from '../../api/campaigns';
import { campaignIdLocator, readCampaignId } from './campaignFields';

const properties: INodeProperties[] = [campaignIdLocator('The campaign to get')];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	return await getCampaign(this, readCampaignId(this, i), i);
}
