import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as create from './create.operation';
import * as deleteCampaign from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as sendNow from './sendNow.operation';
import * as update from './update.operation';

export { cancel, create, deleteCampaign as delete, get, getAll, sendNow, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['campaign'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a draft or scheduled campaign',
				action: 'Cancel a campaign',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Create a campaign for phone numbers and/or contact groups, as a draft or scheduled',
				action: 'Create a campaign',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a campaign that is not being sent',
				action: 'Delete a campaign',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a campaign with its status and delivery counts',
				action: 'Get a campaign',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List campaigns, most recent first',
				action: 'Get many campaigns',
			},
			{
				name: 'Send Now',
				value: 'sendNow',
				description: 'Send a draft or scheduled campaign immediately',
				action: 'Send a campaign now',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change a draft or scheduled campaign',
				action: 'Update a campaign',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...update.description,
	...deleteCampaign.description,
	...sendNow.description,
	...cancel.description,
];
