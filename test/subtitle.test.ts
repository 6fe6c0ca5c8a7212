/** The canvas subtitle, resolved by n8n's own expression engine, reads in display names. */
import type { INode, INodeTypes } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';

const nodeType = new SvcMessaging();
const nodeTypes: INodeTypes = {
	getByName: () => nodeType,
	getByNameAndVersion: (_type, version) => NodeHelpers.getVersionedNodeType(nodeType, version),
	getKnownTypes: () => ({}),
};

function subtitleFor(resource: string, operation: string): unknown {
	const node: INode = {
		id: 'n1',
		name: 'SVC Messaging',
		type: 'n8n-nodes-svc-messaging.svcMessaging',
		typeVersion: 1,
		position: [0, 0],
		parameters: { resource, operation },
	};
	const workflow = new Workflow({ id: 'w', nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, nodeType.description.subtitle!, 'internal', {});
}

it.each([
	['sms', 'sendBulk', 'SMS: Send Bulk'],
	['sms', 'send', 'SMS: Send'],
	['chatMessage', 'send', 'Chat Message: Send'],
	['campaign', 'getAll', 'Campaign: Get Many'],
	['senderId', 'getAll', 'Sender ID: Get Many'],
	['account', 'getBalance', 'Account: Get Balance'],
])('%s / %s → "%s"', (resource, operation, expected) => {
	expect(subtitleFor(resource, operation)).toBe(expected);
});
