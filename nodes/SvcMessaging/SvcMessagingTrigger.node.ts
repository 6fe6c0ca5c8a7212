import type {
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triggerBuilderHint } from './builderHints';
import { svcMessagingApiTest } from './methods/credentialTest';
import { EDITION } from './platform/edition';
import { DOCUMENTATION_URL } from './transport/service';
import { triggerProperties } from './trigger/properties';
import { deliveryReportWebhookMethods } from './trigger/registration';
import { handleDeliveryReport } from './trigger/webhook';

export class SvcMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: EDITION.trigger.displayName,
		name: EDITION.trigger.name,
		icon: { light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		// n8n's node panel shows this node and SVC Messaging as one app with this text: it describes both.
		description: 'Send SMS and chat messages with the SVC messaging service, and start workflows on their delivery reports',
		documentationUrl: DOCUMENTATION_URL,
		defaults: {
			name: EDITION.trigger.displayName,
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: EDITION.apiKeyCredential.name,
				// Only its Webhook Secret is used, to check signatures; without it none are checked.
				required: false,
				testedBy: 'svcMessagingApiTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// n8n answers at once (before the workflow runs) with the `webhookResponse` the node
				// returns; `responseData: ''` stops n8n from sending its "firstEntryJson" default.
				// 400 and 401 are answered by the node itself.
				responseMode: 'onReceived',
				responseData: '',
				path: 'svc-messaging',
			},
		],
		properties: triggerProperties,
		...triggerBuilderHint,
	};

	webhookMethods = deliveryReportWebhookMethods;

	methods = { credentialTest: { svcMessagingApiTest } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDeliveryReport.call(this);
	}
}
