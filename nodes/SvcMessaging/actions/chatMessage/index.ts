import type { INodeProperties } from 'n8n-workflow';

import * as send from './send.operation';

export { send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['chatMessage'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description: 'Send a text, image, document, video or template message per input item',
				action: 'Send a chat message',
			},
		],
		default: 'send',
	},
	...send.description,
];
