import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './account';
import * as campaign from './campaign';
import * as chatMessage from './chatMessage';
import * as chatTemplate from './chatTemplate';
import * as doNotSendList from './doNotSendList';
import * as senderId from './senderId';
import * as sms from './sms';
import { EDITION } from '../platform/edition';
import { toolProperties } from './tool.descriptions';
import { DOCUMENTATION_URL } from '../transport/service';
import { DELIVERY_WAIT } from './sms/deliveryWait';
import { ALL_VERSIONS, examplePlaceholdersInV2, LATEST_VERSION, NODE_VERSIONS } from './versions';

const API_KEY_RESOURCES = ['sms', 'senderId', 'chatMessage', 'chatTemplate', 'doNotSendList'];

/**
 * The canvas subtitle in display names ("SMS: Send Bulk", not "sendBulk: sms"), looked up from the
 * resource and operation options themselves so that it never disagrees with the form.
 */
function subtitleOf(properties: INodeProperties[]): string {
	const modules = { account, campaign, chatMessage, chatTemplate, doNotSendList, senderId, sms };
	const resourceOptions = (properties.find((p) => p.name === 'resource')?.options ?? []) as Array<{ name: string; value: string }>;
	const resources = Object.fromEntries(resourceOptions.map((o) => [o.value, o.name]));
	const operations: Record<string, string> = {};
	for (const [resource, module] of Object.entries(modules)) {
		// Every version's Operation field (version 2 adds Chat Message → Send Template).
		for (const operation of module.description.filter((p) => p.name === 'operation')) {
			for (const option of (operation.options ?? []) as Array<{ name: string; value: string }>) {
				operations[`${resource}.${option.value}`] = option.name;
			}
		}
	}
	return `={{ ${JSON.stringify(resources)}[$parameter["resource"]] + ": " + ${JSON.stringify(operations)}[$parameter["resource"] + "." + $parameter["operation"]] }}`;
}

export const versionDescription: INodeTypeDescription = {
	displayName: EDITION.action.displayName,
	name: EDITION.action.name,
	group: ['output'],
	// Version 2 changes defaults and forms (actions/versions.ts); version 1 workflows keep theirs.
	version: NODE_VERSIONS,
	defaultVersion: LATEST_VERSION,
	description: 'Send SMS, campaigns and chat messages with the SVC messaging service',
	// An http(s) documentationUrl is opened as it is; the codex link gets '?utm_…' appended after its '#anchor'.
	documentationUrl: DOCUMENTATION_URL,
	defaults: { name: EDITION.action.displayName },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	// "Send and Wait for Delivery" continues on "Delivered" or "Not Delivered".
	outputs: `={{ $parameter["resource"] === "sms" && $parameter["operation"] === "sendAndWaitForDelivery" ? [{ "type": "main", "displayName": "Delivered" }, { "type": "main", "displayName": "Not Delivered" }] : ["main"] }}`,
	// Its delivery reports reach the waiting execution at its resume URL (`$execution.resumeUrl`/<path>).
	webhooks: [
		{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: DELIVERY_WAIT.resumePath, restartWebhook: true },
	],
	// The editor treats a parameter named in a credential's `displayOptions.show` as the node's
	// "authentication" field: it hides that parameter, and every parameter it depends on (resource
	// and operation included), from the form. `hide` conditions are not read that way, so each
	// credential is hidden when its switch — defined for every resource and operation below — is false.
	// A credential with no `show` at all, though, is taken for one of several ways to log in: its
	// dropdown is labelled "Credential to connect with" and its "Create new credential" opens the
	// node's first credential type. ALL_VERSIONS is a `show` that names no parameter, so each
	// dropdown keeps its own type and its label "Credential for <type>" (n8n 1 and 2).
	credentials: [
		{
			name: EDITION.apiKeyCredential.name,
			required: true,
			// The credential's Test (methods/credentialTest.ts): the key, and its Redis when "Use Redis" is on.
			testedBy: 'svcMessagingApiTest',
			displayOptions: { show: ALL_VERSIONS, hide: { useApiKey: [false] } },
		},
		{
			name: EDITION.accountCredential.name,
			required: true,
			displayOptions: { show: ALL_VERSIONS, hide: { checkBalance: [false] } },
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
				{ name: 'Do-Not-Send List', value: 'doNotSendList' },
				{ name: 'Sender ID', value: 'senderId' },
				{ name: 'SMS', value: 'sms' },
			],
			default: 'sms',
		},
		// Only in "SVC Messaging Tool" (`@tool`): the description a model gets, the agents' message cap.
		...toolProperties,
		// Credential switches (see `credentials` above). Campaign Create/Update have a visible
		// `useApiKey` (the sender-ID picker); SMS Send/Send Bulk a visible `checkBalance`.
		{
			displayName: 'Use API Key',
			name: 'useApiKey',
			type: 'hidden',
			default: true,
			displayOptions: { show: { resource: API_KEY_RESOURCES } },
		},
		{
			displayName: 'Use API Key',
			name: 'useApiKey',
			type: 'hidden',
			default: false,
			displayOptions: { show: { resource: ['account'] } },
		},
		{
			displayName: 'Use API Key',
			name: 'useApiKey',
			type: 'hidden',
			default: false,
			displayOptions: { show: { resource: ['campaign'], operation: ['get', 'getAll', 'delete', 'sendNow', 'cancel'] } },
		},
		{
			displayName: 'Uses Account Login',
			name: 'checkBalance',
			type: 'hidden',
			default: true,
			displayOptions: { show: { resource: ['campaign', 'account'] } },
		},
		{
			displayName: 'Uses Account Login',
			name: 'checkBalance',
			type: 'hidden',
			default: false,
			displayOptions: { show: { resource: ['senderId', 'chatMessage', 'chatTemplate', 'doNotSendList'] } },
		},
		{
			displayName: 'Uses Account Login',
			name: 'checkBalance',
			type: 'hidden',
			default: false,
			displayOptions: { show: { resource: ['sms'], operation: ['getMessage', 'getBatch', 'getDeliveryRates'] } },
		},
		...sms.description,
		...senderId.description,
		...campaign.description,
		...account.description,
		...chatMessage.description,
		...chatTemplate.description,
		...doNotSendList.description,
	],
};

// Set after the description: n8n's lint reads the Resource options only as an inline array.
versionDescription.subtitle = subtitleOf(versionDescription.properties);
versionDescription.properties = examplePlaceholdersInV2(versionDescription.properties);
if (!EDITION.redis) versionDescription.properties = withoutListResource(versionDescription.properties);

/**
 * An edition without Redis has nowhere to keep a do-not-send list: the Do-Not-Send List resource
 * (the list in Redis) is left out; each send's "Do-Not-Send List → Numbers" option stays.
 */
function withoutListResource(properties: INodeProperties[]): INodeProperties[] {
	const LIST = 'doNotSendList';
	return properties.flatMap((property) => {
		const resources = property.displayOptions?.show?.resource as string[] | undefined;
		if (property.name === 'resource') {
			return [{ ...property, options: (property.options as Array<{ value: string }>).filter((o) => o.value !== LIST) } as INodeProperties];
		}
		if (!resources?.includes(LIST)) return [property];
		const others = resources.filter((resource) => resource !== LIST);
		if (others.length === 0) return [];
		return [{ ...property, displayOptions: { ...property.displayOptions, show: { ...property.displayOptions!.show, resource: others } } }];
	});
}
