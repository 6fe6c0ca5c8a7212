import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getMessage } from '../../api/sms';
import { checkField } from '../../rules/fields';
import { pathId } from '../../rules/schemas';

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

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const messageId = checkField(this.getNode(), pathId, this.getNodeParameter('messageId', i), i, 'Message ID');
	return await getMessage(this, messageId, i);
}
