import type { INodeProperties } from 'n8n-workflow';

import { changedInV2 } from '../versions';
import * as send from './send.operation';
import * as sendTemplate from './sendTemplate.operation';

export { send, sendTemplate };

const SEND_TEMPLATE = {
	name: 'Send Template',
	value: 'sendTemplate',
	description:
		'Send an approved message template per input item. A template is the only way to start a conversation with a recipient who has not written to you first.',
	action: 'Send a chat template message',
};

export const description: INodeProperties[] = [
	...changedInV2(
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
		{
			options: [
				{
					name: 'Send',
					value: 'send',
					description: 'Send a text, image, document or video message per input item, to a recipient who has written to you',
					action: 'Send a chat message',
				},
				SEND_TEMPLATE,
			],
			default: 'sendTemplate',
		},
	),
	...send.description,
	...sendTemplate.description,
];
