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

/**
 * Version 2's Operation field first: n8n's nodes panel builds a node's actions from the first
 * Operation field of a resource (whatever its version), and new nodes are version 2.
 */
const [operationV1, operationV2] = changedInV2(
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
);

export const description: INodeProperties[] = [
	operationV2,
	operationV1,
	...send.description,
	...sendTemplate.description,
];
