import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCampaign } from '../../api/campaigns';
import { mapItems } from '../executor';
import { campaignIdLocator, readCampaignId } from './campaignFields';

const properties: INodeProperties[] = [campaignIdLocator('The campaign to get')];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => await getCampaign(this, readCampaignId(this, i), i));
}
