import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkLimit } from '../../rules/fields';
import { returnAllOrLimit } from '../common.descriptions';
import { withList } from './store';

export const description = updateDisplayOptions({ show: { resource: ['doNotSendList'], operation: ['getAll'] } }, returnAllOrLimit);

/** One item per listed number, in Redis's order (a set has no other). */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const limit = this.getNodeParameter('returnAll', i, false) ? undefined : checkLimit(this.getNode(), this.getNodeParameter('limit', i, 50), i);
	const numbers = await withList(this, i, async (list) => await list.members(limit));
	return numbers.map((phoneNumber) => ({ phoneNumber, onDoNotSendList: true }));
}
