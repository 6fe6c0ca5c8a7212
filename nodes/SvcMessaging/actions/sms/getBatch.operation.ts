import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getBatch } from '../../api/sms';
import { checkField } from '../../rules/fields';
import { pathId } from '../../rules/schemas';

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
	const batchId = checkField(this.getNode(), pathId, this.getNodeParameter('batchId', i), i, 'Batch ID');
	return await getBatch(this, batchId, i);
}
