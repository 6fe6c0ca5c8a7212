/**
 * The workflows and credentials of the real-n8n cost rows (bench/n8nCost.ts): the same job done by
 * SVC Messaging → SMS Send and by n8n's own HTTP Request node posting the same SMS to the same
 * emulator (POST /api/sms/send-api, header x-api-key, JSON body), each started by a Webhook node
 * that answers when the last node has finished, as an OTP or order flow is.
 */
import { http, type CredentialJson, type N8n, type WorkflowJson, type WorkflowNode } from '../test/e2e/harness';
import { SEND_PATH } from './lib';

export const SMS_NODE = 'Send SMS';

export interface FlowAccount {
	/** the emulator account's API key (each row has an account of its own: its messages are counted apart) */
	apiKey: string;
	credentialId: string;
}

/** The SVC Messaging API credential (Business) and the HTTP Request node's Header Auth credential of one key. */
export function flowCredentials(emulatorUrl: string, sms: FlowAccount[], headerAuth: FlowAccount[]): CredentialJson[] {
	return [
		...sms.map((a) => ({
			id: a.credentialId,
			name: `SVC Messaging API (bench ${a.credentialId})`,
			type: 'svcMessagingApi',
			data: { baseUrl: emulatorUrl, apiKey: a.apiKey, plan: 'business' },
		})),
		...headerAuth.map((a) => ({
			id: a.credentialId,
			name: `x-api-key (bench ${a.credentialId})`,
			type: 'httpHeaderAuth',
			data: { name: 'x-api-key', value: a.apiKey },
		})),
	];
}

const webhook = (path: string, responseData: string): WorkflowNode => ({
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId: path,
	parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData, options: {} },
});

/**
 * The node that makes one item from the webhook's body (a number and its code), as an OTP flow
 * builds its message: `set` is an Edit Fields node (no task runner: in CI one execution of 450 once
 * failed before its send in the Code flow, its cause not recorded; the runner is the suspect);
 * `code` is a Code node, as most users write it (n8n's task runner between the webhook and the send).
 */
export type TextNode = 'set' | 'code';

const oneItemCode: WorkflowNode = {
	name: 'OTP text',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	position: [220, 0],
	parameters: {
		jsCode: 'const { phone, code } = $input.first().json.body;\nreturn [{ json: { phone, text: `Your verification code is ${code}` } }];',
	},
};

const oneItemSet: WorkflowNode = {
	name: 'OTP text',
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	position: [220, 0],
	parameters: {
		mode: 'manual',
		assignments: {
			assignments: [
				{ id: 'phone', name: 'phone', value: '={{ $json.body.phone }}', type: 'string' },
				{ id: 'text', name: 'text', value: '=Your verification code is {{ $json.body.code }}', type: 'string' },
			],
		},
		options: {},
	},
};

/** The body's items, one n8n item each (no task runner: the many-SMS rows measure the send). */
const manyItems: WorkflowNode = {
	name: 'Items',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	position: [220, 0],
	parameters: { fieldToSplitOut: 'body.items', options: {} },
};

function smsSend(credentialId: string): WorkflowNode {
	return {
		name: SMS_NODE,
		type: 'n8n-nodes-svc-messaging.svcMessaging',
		typeVersion: 2,
		position: [440, 0],
		credentials: { svcMessagingApi: { id: credentialId, name: `SVC Messaging API (bench ${credentialId})` } },
		parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: '={{ $json.text }}', options: {} },
	};
}

function httpRequest(emulatorUrl: string, credentialId: string): WorkflowNode {
	return {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [440, 0],
		credentials: { httpHeaderAuth: { id: credentialId, name: `x-api-key (bench ${credentialId})` } },
		parameters: {
			method: 'POST',
			url: `${emulatorUrl}${SEND_PATH}`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify({ phoneNumber: $json.phone, message: $json.text }) }}',
			options: {},
		},
	};
}

function chain(name: string, nodes: WorkflowNode[]): WorkflowJson {
	const connections: WorkflowJson['connections'] = {};
	for (let i = 0; i + 1 < nodes.length; i++) connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

export type FlowKind = 'sms' | 'http';

/** Webhook → Edit Fields or Code → SMS Send (or HTTP Request): one SMS per execution. */
export function oneSmsFlow(kind: FlowKind, textNode: TextNode, path: string, emulatorUrl: string, credentialId: string): WorkflowJson {
	const send = kind === 'sms' ? smsSend(credentialId) : httpRequest(emulatorUrl, credentialId);
	return chain(`bench ${path}`, [webhook(path, 'firstEntryJson'), textNode === 'code' ? oneItemCode : oneItemSet, send]);
}

/** Webhook → Split Out → SMS Send of every item of the body. */
export function manySmsFlow(path: string, credentialId: string): WorkflowJson {
	return chain(`bench ${path}`, [webhook(path, 'allEntries'), manyItems, smsSend(credentialId)]);
}

export interface ActiveFlow {
	workflowId: string;
	/** POSTs `body` to the production webhook and resolves with n8n's answer once the execution ended */
	post<T = unknown>(body: unknown, timeoutMs?: number): Promise<{ status: number; body: T; text: string }>;
}

/** Creates the workflow, activates it and waits until its production webhook answers. */
export async function activate(n8n: N8n, workflow: WorkflowJson): Promise<ActiveFlow> {
	const path = workflow.nodes[0].parameters.path as string;
	const workflowId = await n8n.createWorkflow(workflow);
	await n8n.activate(workflowId);
	await n8n.waitForWebhook(path);
	return {
		workflowId,
		post: async <T>(body: unknown, timeoutMs = 120_000) => await http<T>('POST', `${n8n.url}/webhook/${path}`, body, {}, timeoutMs),
	};
}

/**
 * What n8n saved for the workflow's first failed execution ("node: message — description"), so a
 * row's "Error in workflow" says which node failed and why; undefined when none was saved.
 */
export async function firstFailure(n8n: N8n, workflowId: string): Promise<string | undefined> {
	const page = await n8n
		.api<{ data: Array<{ id: string; data?: { resultData?: { error?: { message?: string; description?: string; node?: { name?: string } }; lastNodeExecuted?: string } } }> }>(
			'GET',
			`/executions?workflowId=${workflowId}&status=error&includeData=true&limit=1`,
		)
		.catch((e: Error) => ({ data: [], failed: e.message }));
	const execution = page.data[0];
	const result = execution?.data?.resultData;
	if (!result) return 'failed' in page ? `(its saved error unreadable: ${page.failed as string})` : undefined;
	const error = result.error;
	const node = error?.node?.name ?? result.lastNodeExecuted ?? '?';
	return `execution ${execution.id}, node "${node}": ${error?.message ?? 'no message'}${error?.description ? ` — ${error.description}` : ''}`.slice(0, 600);
}
