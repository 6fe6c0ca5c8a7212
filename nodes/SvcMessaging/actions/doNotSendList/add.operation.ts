import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { numberFields, numberOf, withList } from './store';

export const description = updateDisplayOptions({ show: { resource: ['doNotSendList'], operation: ['add'] } }, numberFields);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const phoneNumber = numberOf(this, i);
	const added = await withList(this, i, async (list) => await list.add([phoneNumber]));
	return { phoneNumber, onDoNotSendList: true, added: added === 1 };
}
