import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteTemplate from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { create, get, getAll };
export { deleteTemplate as delete };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['chatTemplate'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Submit a message template for review',
				action: 'Create a chat template',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a message template',
				action: 'Delete a chat template',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a template with its review status',
				action: 'Get a chat template',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List templates, filtered by status, category or language',
				action: 'Get many chat templates',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...deleteTemplate.description,
];
