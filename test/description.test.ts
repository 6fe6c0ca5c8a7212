import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';

const description = new SvcMessaging().description;
const node = { typeVersion: 1 } as never;

/** What n8n's editor shows for a choice of parameters: visible parameters and credentials. */
function shown(values: INodeParameters) {
	const parameters = NodeHelpers.getNodeParameters(description.properties, values, true, false, null, description)!;
	const visible = (p: { displayOptions?: INodeProperties['displayOptions'] }) =>
		NodeHelpers.displayParameter(parameters, p as INodeProperties, node, description, parameters);
	return {
		parameters: description.properties.filter(visible).map((p) => p.name),
		credentials: (description.credentials ?? []).filter(visible).map((c) => c.name),
	};
}

const operationsOf = (resource: string) =>
	(
		description.properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))
			?.options as INodePropertyOptions[]
	).map((o) => String(o.value));

const API_KEY_RESOURCES = ['sms', 'senderId', 'chatMessage', 'chatTemplate'];
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

	it("adds the API key to Campaign Create when the sender ID is picked from the account's list", () => {
		expect(shown({ resource: 'campaign', operation: 'create', useApiKey: true }).credentials).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
	});

	it("gives the editor no 'authentication' field to hide (which would hide Resource and Operation too)", () => {
		// n8n's editor (getNodeAuthFields/getMainAuthField) reads credentials' displayOptions.show only.
		expect((description.credentials ?? []).filter((c) => c.displayOptions?.show)).toEqual([]);
		expect(description.properties.some((p) => p.name === 'authentication')).toBe(false);
	});

	it('names operations as n8n does and offers them as AI tool actions', () => {
		expect(description.usableAsTool).toBe(true);
		expect(operationsOf('campaign')).toEqual(expect.arrayContaining(['create', 'get', 'getAll', 'update', 'delete', 'sendNow', 'cancel']));
		expect(operationsOf('chatTemplate')).toEqual(expect.arrayContaining(['create', 'get', 'getAll', 'delete']));
	});
});
