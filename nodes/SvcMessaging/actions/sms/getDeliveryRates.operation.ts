import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getDeliveryRates } from '../../api/sms';
import { toLocalDate } from '../../rules/dateTime';
import { failItem } from '../../rules/fields';

const properties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Start Date',
				name: 'startDate',
				type: 'dateTime',
				default: '',
				description: 'First day of the period (inclusive). Default: 30 days ago.',
			},
			{
				displayName: 'End Date',
				name: 'endDate',
				type: 'dateTime',
				default: '',
				description: 'Last day of the period (inclusive). Default: today.',
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
	const qs: IDataObject = {};
	for (const key of ['startDate', 'endDate'] as const) {
		if (!filters[key]) continue;
		const date = toLocalDate(filters[key], this.getTimezone());
		if (!date) failItem(this.getNode(), i, `"${key === 'startDate' ? 'Start Date' : 'End Date'}" must be a date`);
		qs[key] = date;
	}
	if (qs.startDate && qs.endDate && String(qs.startDate) > String(qs.endDate)) {
		failItem(this.getNode(), i, '"Start Date" must not be after "End Date"');
	}
	return await getDeliveryRates(this, qs, i);
}
