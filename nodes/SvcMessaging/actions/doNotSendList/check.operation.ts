import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { numberFields, numberOf, withList } from './store';

export const description = updateDisplayOptions({ show: { resource: ['doNotSendList'], operation: ['check'] } }, numberFields);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const phoneNumber = numberOf(this, i);
	const [listed] = await withList(this, i, async (list) => await list.listed([phoneNumber]));
	return { phoneNumber, onDoNotSendList: listed };
}
