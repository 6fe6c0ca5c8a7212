import type { INodeProperties } from 'n8n-workflow';

import * as add from './add.operation';
import * as check from './check.operation';
import * as getAll from './getMany.operation';
import * as remove from './remove.operation';

export { add, check, getAll, remove };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['doNotSendList'] } },
		options: [
			{
				name: 'Add',
				value: 'add',
				description: 'Add a number to the do-not-send list (e.g. from an opt-out form): no send will post to it',
				action: 'Add a number to the do not send list',
			},
			{
				name: 'Check',
				value: 'check',
				description: 'Whether a number is on the do-not-send list',
				action: 'Check a number against the do not send list',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the numbers on the do-not-send list',
				action: 'Get many numbers on the do not send list',
			},
			{
				name: 'Remove',
				value: 'remove',
				description: 'Take a number off the do-not-send list (e.g. the person opted in again)',
				action: 'Remove a number from the do not send list',
			},
		],
		default: 'add',
	},
	{
		displayName: "The list is kept in the credential's Redis (\"Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)\"); every send with that credential checks it",
		name: 'doNotSendListNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['doNotSendList'] } },
	},
	...add.description,
	...check.description,
	...getAll.description,
	...remove.description,
];
