import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getBalance } from '../../api/account';
import { mapItems } from '../executor';

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

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		// README → Assumptions: `{ success, data: { credits, updatedAt } }`; the data is returned as it is.
		const balance = await getBalance(this, i);
		return balance && typeof balance === 'object' && !Array.isArray(balance) ? balance : { balance };
	});
}
