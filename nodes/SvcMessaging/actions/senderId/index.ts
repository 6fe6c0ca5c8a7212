import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getMany.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['senderId'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the sender IDs approved for the account',
				action: 'Get many sender identifiers',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
