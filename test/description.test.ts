import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';

const description = new SvcMessaging().description;
/** What n8n's editor shows for a choice of parameters, in node version 1 unless told: visible parameters and credentials. */
function shown(values: INodeParameters, typeVersion = 1) {
	const node = { typeVersion, parameters: values } as never;
	const parameters = NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description)!;
	const visible = (p: { displayOptions?: INodeProperties['displayOptions'] }) =>
		NodeHelpers.displayParameter(parameters, p as INodeProperties, node, description, parameters);
	return {
		parameters: description.properties.filter(visible).map((p) => p.name),
		credentials: (description.credentials ?? []).filter(visible).map((c) => c.name),
	};
}

const operationsOf = (resource: string, version = 1) =>
	(
		description.properties.find(
			(p) =>
				p.name === 'operation' &&
				p.displayOptions?.show?.resource?.includes(resource) &&
				((p.displayOptions.show['@version'] as number[] | undefined) ?? [version]).includes(version),
		)?.options as INodePropertyOptions[]
	).map((o) => String(o.value));

const API_KEY_RESOURCES = ['sms', 'senderId', 'chatMessage', 'chatTemplate', 'doNotSendList'];
const resources = (description.properties.find((p) => p.name === 'resource')!.options as INodePropertyOptions[]).map((o) => String(o.value));

describe('node description as the editor shows it', () => {
	it.each(resources.flatMap((resource) => operationsOf(resource).map((operation) => [resource, operation])))(
		'%s → %s shows each parameter once and the right credential',
		(resource, operation) => {
			const { parameters, credentials } = shown({ resource, operation });
			expect(new Set(parameters).size).toBe(parameters.length);
			expect(credentials).toEqual(API_KEY_RESOURCES.includes(resource) ? ['svcMessagingApi'] : ['svcMessagingAccountApi']);
		},
	);

	it('adds the account credential on sends only when the balance is checked', () => {
		expect(shown({ resource: 'sms', operation: 'send', checkBalance: true }).credentials).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
		expect(shown({ resource: 'sms', operation: 'sendBulk', checkBalance: true }).credentials).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
	});

	it.each(resources.flatMap((resource) => operationsOf(resource, 2).map((operation) => [resource, operation])))(
		'version 2: %s → %s shows each parameter once and the right credentials',
		(resource, operation) => {
			const { parameters, credentials } = shown({ resource, operation }, 2);
			expect(new Set(parameters).size).toBe(parameters.length);
			// Campaign Create and Update: the sender ID picker lists the account's sender IDs with the API key.
			const both = resource === 'campaign' && ['create', 'update'].includes(operation);
			expect(credentials).toEqual(
				both ? ['svcMessagingApi', 'svcMessagingAccountApi'] : API_KEY_RESOURCES.includes(resource) ? ['svcMessagingApi'] : ['svcMessagingAccountApi'],
			);
		},
	);

	it('version 2: Campaign Create shows the sender ID picker and Scheduled Time, not the switch or the text field', () => {
		const { parameters } = shown({ resource: 'campaign', operation: 'create' }, 2);
		expect(parameters).toEqual(expect.arrayContaining(['senderId', 'scheduledAt', 'phoneNumber']));
		expect(parameters).not.toContain('senderIdText');
		expect(parameters).not.toContain('phoneNumbers');
		expect(shown({ resource: 'campaign', operation: 'create' }, 1).parameters).not.toContain('scheduledAt');
	});

	it('version 2: Chat Message → Send Template shows the template fields without Message Type', () => {
		const { parameters } = shown({ resource: 'chatMessage', operation: 'sendTemplate' }, 2);
		expect(parameters).toEqual(expect.arrayContaining(['phoneNumber', 'template', 'templateLanguage', 'templateVariables']));
		expect(parameters).not.toContain('messageType');
		expect(shown({ resource: 'chatMessage' }, 2).parameters).toContain('template');
	});

	it("adds the API key to Campaign Create when the sender ID is picked from the account's list", () => {
		expect(shown({ resource: 'campaign', operation: 'create', useApiKey: true }).credentials).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
	});

	it("gives the editor no 'authentication' field to hide (which would hide Resource and Operation too)", () => {
		// n8n's editor (getNodeAuthFields/getMainAuthField) takes a parameter named in a credential's
		// displayOptions.show for the node's authentication field.
		const parameters = new Set(description.properties.map((p) => p.name));
		const named = (description.credentials ?? []).flatMap((c) => Object.keys(c.displayOptions?.show ?? {}));
		expect(named.filter((name) => parameters.has(name))).toEqual([]);
		expect(parameters.has('authentication')).toBe(false);
	});

	it('gives each credential a `show`, so the editor does not take it for one of several ways to log in', () => {
		// Without one, n8n's editor (isRequiredCredential) labels every dropdown "Credential to connect
		// with" and opens the node's first credential type from each "Create new credential".
		expect((description.credentials ?? []).map((c) => [c.name, Object.keys(c.displayOptions?.show ?? {})])).toEqual([
			['svcMessagingApi', ['@version']],
			['svcMessagingAccountApi', ['@version']],
		]);
	});

	it('names operations as n8n does and offers them as AI tool actions', () => {
		expect(description.usableAsTool).toBe(true);
		expect(operationsOf('campaign')).toEqual(expect.arrayContaining(['create', 'get', 'getAll', 'update', 'delete', 'sendNow', 'cancel']));
		expect(operationsOf('chatTemplate')).toEqual(expect.arrayContaining(['create', 'get', 'getAll', 'delete']));
	});
});
