import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listSenderIds } from '../../api/sms';
import { SUPPORTED_COUNTRIES } from '../../rules/phone';
import { returnAllOrLimit } from '../common.descriptions';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Country',
				name: 'country',
				type: 'options',
				default: '',
				description: 'Only sender IDs approved for this country',
				options: [
					{ name: 'Any', value: '' },
					...Object.entries(SUPPORTED_COUNTRIES)
						.map(([value, name]) => ({ name, value }))
						.sort((a, b) => a.name.localeCompare(b.name)),
				],
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'ACTIVE',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['senderId'], operation: ['getAll'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const matching = (await listSenderIds(this, i)).filter(
		(s) =>
			(!filters.country || (s.countries as string[] | undefined)?.includes(filters.country as string)) &&
			(!filters.status || s.status === filters.status),
	);
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	return returnAll ? matching : matching.slice(0, this.getNodeParameter('limit', i) as number);
}
