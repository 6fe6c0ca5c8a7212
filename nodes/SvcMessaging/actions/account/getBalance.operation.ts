import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getBalance } from '../../api/account';

const properties: INodeProperties[] = [
	{
		displayName:
			'Returns the balance as the service reports it: <code>credits</code> (1 credit per SMS segment, 1 per chat message) and <code>updatedAt</code>',
		name: 'balanceNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['getBalance'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	// docs/assumptions.md: `{ success, data: { credits, updatedAt } }`; the data is returned as it is.
	const balance = await getBalance(this, i);
	return balance && typeof balance === 'object' && !Array.isArray(balance) ? balance : { balance };
}
