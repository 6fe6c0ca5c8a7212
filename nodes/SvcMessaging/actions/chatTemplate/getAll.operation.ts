import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listTemplatesPage } from '../../api/chat';
import { readPages } from '../../api/pages';
import { checkLanguageCode } from '../../rules/templateText';
import { SERVICE } from '../../transport/service';
import { returnAllOrLimit } from '../common.descriptions';
import { languageDescription } from './descriptions';

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
				displayName: 'Category',
				name: 'category',
				type: 'options',
				default: 'UTILITY',
				options: [
					{ name: 'Authentication', value: 'AUTHENTICATION' },
					{ name: 'Marketing', value: 'MARKETING' },
					{ name: 'Service', value: 'SERVICE' },
					{ name: 'Utility', value: 'UTILITY' },
				],
			},
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'en',
				description: languageDescription,
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'APPROVED',
				options: [
					{ name: 'Approved', value: 'APPROVED' },
					{ name: 'Disabled', value: 'DISABLED' },
					{ name: 'Paused', value: 'PAUSED' },
					{ name: 'Pending', value: 'PENDING' },
					{ name: 'Rejected', value: 'REJECTED' },
				],
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['getAll'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? Infinity : (this.getNodeParameter('limit', i) as number);
	const qs: IDataObject = {};
	if (filters.status) qs.status = filters.status;
	if (filters.category) qs.category = filters.category;
	if (filters.language) {
		qs.language = checkLanguageCode(this.getNode(), i, filters.language, '"Language" filter must be a language code such as en, sw or en_US');
	}
	// Pages as large as needed and no more: a limit of 30 is one request of 30.
	const pageSize = Math.min(SERVICE.maxPageSize, Number.isFinite(limit) ? limit : SERVICE.maxPageSize);
	const { rows } = await readPages(async (page, size) => await listTemplatesPage(this, { ...qs, page, limit: size }, i), {
		pageSize,
		enough: (read) => read.length >= limit,
	});
	return rows.slice(0, limit);
}
