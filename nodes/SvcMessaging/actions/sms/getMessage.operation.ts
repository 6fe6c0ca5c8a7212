import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getMessage } from '../../api/sms';
import { failItem } from '../../rules/fields';
import { mapItems } from '../executor';

const properties: INodeProperties[] = [
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		required: true,
		default: '',
		description: 'The messageId returned by Send or Send Bulk',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['getMessage'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const messageId = String(this.getNodeParameter('messageId', i)).trim();
		if (!messageId) failItem(this.getNode(), i, '"Message ID" must not be empty');
		return await getMessage(this, messageId, i);
	});
}
