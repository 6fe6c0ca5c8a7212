import type { INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './account';
import * as campaign from './campaign';
import * as chatMessage from './chatMessage';
import * as chatTemplate from './chatTemplate';
import * as senderId from './senderId';
import * as sms from './sms';

export const versionDescription: INodeTypeDescription = {
	displayName: 'SVC Messaging',
	name: 'svcMessaging',
	icon: 'file:svcMessaging.svg',
	group: ['output'],
	version: 1,
	subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
	description: 'Send SMS, campaigns and chat messages with the SVC messaging service',
	defaults: { name: 'SVC Messaging' },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [
		{
			// Hidden parameter "useApiKey" (true for the API-key resources) and the campaign's sender-ID
			// picker switch decide when this credential is shown.
			name: 'svcMessagingApi',
			required: true,
			displayOptions: { show: { useApiKey: [true] } },
		},
		{
			// Shown for campaigns and the account (JWT endpoints), and on sends when the balance is checked.
			name: 'svcMessagingAccountApi',
			required: true,
			displayOptions: { show: { checkBalance: [true] } },
		},
	],
	properties: [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Account', value: 'account' },
				{ name: 'Campaign', value: 'campaign' },
				{ name: 'Chat Message', value: 'chatMessage' },
				{ name: 'Chat Template', value: 'chatTemplate' },
				{ name: 'Sender ID', value: 'senderId' },
				{ name: 'SMS', value: 'sms' },
			],
			default: 'sms',
		},
		{
			displayName: 'Use API Key',
			name: 'useApiKey',
			type: 'hidden',
			default: true,
			displayOptions: { show: { resource: ['sms', 'senderId', 'chatMessage', 'chatTemplate'] } },
		},
		{
			// Campaign and account endpoints always use the account login (see the credential above).
			displayName: 'Uses Account Login',
			name: 'checkBalance',
			type: 'hidden',
			default: true,
			displayOptions: { show: { resource: ['campaign', 'account'] } },
		},
		...sms.description,
		...senderId.description,
		...campaign.description,
		...account.description,
		...chatMessage.description,
		...chatTemplate.description,
	],
};
