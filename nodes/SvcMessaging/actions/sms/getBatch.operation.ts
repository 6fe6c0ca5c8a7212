import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getBatch } from '../../api/sms';
import { failItem } from '../../rules/fields';

const properties: INodeProperties[] = [
	{
		displayName: 'Batch ID',
		name: 'batchId',
		type: 'string',
		required: true,
		default: '',
		description: 'The batchId returned by Send Bulk',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['getBatch'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const batchId = String(this.getNodeParameter('batchId', i)).trim();
	if (!batchId) failItem(this.getNode(), i, '"Batch ID" must not be empty');
	return await getBatch(this, batchId, i);
}
