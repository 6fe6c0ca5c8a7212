import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getDeliveryRates } from '../../api/sms';
import { checkPeriod } from '../../rules/dateTime';

const properties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'End Date',
				name: 'endDate',
				type: 'dateTime',
				default: '',
				description: 'Last day of the period (inclusive). Default: today.',
			},
			{
				displayName: 'Start Date',
				name: 'startDate',
				type: 'dateTime',
				default: '',
				description: 'First day of the period (inclusive). Default: 30 days ago.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['sms'], operation: ['getDeliveryRates'] } },
	properties,
);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	return await getDeliveryRates(this, checkPeriod(this.getNode(), i, filters, this.getTimezone()), i);
}
