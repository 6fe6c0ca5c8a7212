import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mapItems } from '../../helpers/itemResults';
import { failItem } from '../../helpers/validation';
import { apiRequest, unwrap } from '../../transport/request';
import { SERVICE } from '../../transport/service';

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
		return unwrap<IDataObject>(
			await apiRequest.call(this, { method: 'GET', path: SERVICE.paths.message(messageId), auth: 'apiKey', itemIndex: i }),
		);
	});
}
