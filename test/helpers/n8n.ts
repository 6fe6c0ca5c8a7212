import { Container } from '@n8n/di';
import { ExecuteContext, LoadOptionsContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IExecuteData,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	IVersionedNodeType,
	INodeListSearchResult,
	INodePropertyOptions,
	ResourceMapperFields,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';

import type { TestCredentials } from './credentials';
import { TestCredentialsHelper } from './credentialsHelper';
import { SvcMessaging } from './packageClasses';
import './processedData';

/**
 * Runs the package's nodes inside n8n-core's own execution contexts (ExecuteContext,
 * LoadOptionsContext, WebhookContext), so n8n's real request helpers — credential injection,
 * preAuthentication and the re-login on 401 — are what the tests exercise.
 */
export const credentialsHelper = new TestCredentialsHelper();

const packageName = 'n8n-nodes-svc-messaging';
const nodeTypeInstances: Record<string, INodeType> = {};

export function registerNodeType(name: string, nodeType: INodeType) {
	nodeTypeInstances[`${packageName}.${name}`] = nodeType;
}
registerNodeType('svcMessaging', new SvcMessaging());

const nodeTypes: INodeTypes = {
	getByName: (type) => nodeTypeInstances[type] as INodeType | IVersionedNodeType,
	getByNameAndVersion: (type, version) =>
		NodeHelpers.getVersionedNodeType(nodeTypeInstances[type], version),
	getKnownTypes: () => ({}),
};

export type { TestCredentials };

export interface NodeSetup {
	/** Defaults to the action node. */
	type?: string;
	parameters: IDataObject;
	credentials?: TestCredentials;
	/** Node settings as n8n stores them. */
	settings?: Partial<Pick<INode, 'onError' | 'retryOnFail' | 'maxTries'>>;
	executionId?: string;
	/** The workflow's id (default workflow-under-test): another id is another workflow */
	workflowId?: string;
	/** The node's version as the workflow saved it; default 1 (the version the suites were written for). */
	typeVersion?: number;
	/** the n8n credential's id (default: one per distinct credential data) */
	credentialId?: string;
	/** n8n's execution mode; 'retry' is what the executions list's Retry starts. Default 'manual'. */
	mode?: WorkflowExecuteMode;
	/** n8n's per-execution data to change (e.g. webhookWaitingBaseUrl: where a waiting execution's resume URL points) */
	additionalData?: Partial<IWorkflowExecuteAdditionalData>;
}

/**
 * A credential's id: one per distinct credential (type and data), as one saved credential keeps its
 * id across executions and workflows; `credentialId` names it (a key rotated in one credential).
 */
const credentialIds = new Map<string, string>();
const credentialIdFor = (type: string, data: unknown) => {
	const content = JSON.stringify([type, data]);
	if (!credentialIds.has(content)) credentialIds.set(content, `cred-${credentialIds.size + 1}`);
	return credentialIds.get(content)!;
};

function buildNode(setup: NodeSetup): { workflow: Workflow; node: INode } {
	const credentials: INode['credentials'] = {};
	for (const [type, data] of Object.entries(setup.credentials ?? {})) {
		const id = setup.credentialId ?? credentialIdFor(type, data);
		credentialsHelper.set(id, { ...data });
		credentials[type] = { id, name: type };
	}
	const draft: INode = {
		id: 'node-under-test',
		name: 'SVC Messaging',
		type: setup.type ?? `${packageName}.svcMessaging`,
		typeVersion: setup.typeVersion ?? 1,
		position: [0, 0],
		parameters: setup.parameters as INode['parameters'],
		credentials,
		webhookId: 'webhook-under-test',
		...setup.settings,
	};
	const workflow = new Workflow({
		id: setup.workflowId ?? 'workflow-under-test',
		name: 'test',
		nodes: [draft],
		connections: {},
		active: false,
		nodeTypes,
		settings: { timezone: 'Africa/Nairobi' },
	});
	return { workflow, node: workflow.getNode(draft.name)! };
}

/** n8n's per-execution context data, with the URLs of a default local n8n (`executionId` undefined: a call outside an execution). */
export function additionalData(executionId: string | undefined, extra: Partial<IWorkflowExecuteAdditionalData> = {}) {
	return {
		credentialsHelper,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		variables: {},
		executeWorkflow: async () => ({ executionId: '', data: [] }),
		getRunExecutionData: async () => undefined,
		logAiEvent: async () => {},
		startRunnerTask: async () => ({ ok: false }),
		externalSecretsProxy: {},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

let executionCounter = 0;

/**
 * Runs `execute()` of the node for the given input items; errors are thrown as n8n throws them.
 * `entry`: the node's entry of n8n's execution stack, kept by the caller as n8n keeps it (a waiting
 * node leaves its data and metadata there, and n8n hands the same entry to the resumed run).
 */
export async function executeNode(
	setup: NodeSetup,
	items: Array<IDataObject | INodeExecutionData> = [{}],
	entry?: Partial<IExecuteData>,
): Promise<INodeExecutionData[][]> {
	return (await executeNodeWithHints(setup, items, entry)).output;
}

/** executeNode, with the execution hints the node added (the editor shows them above the output). */
export async function executeNodeWithHints(
	setup: NodeSetup,
	items: Array<IDataObject | INodeExecutionData> = [{}],
	entry?: Partial<IExecuteData>,
): Promise<{ output: INodeExecutionData[][]; hints: string[] }> {
	const { workflow, node } = buildNode(setup);
	const input: INodeExecutionData[] = items.map((item) =>
		'json' in item && typeof item.json === 'object' ? (item as INodeExecutionData) : { json: item as IDataObject },
	);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData(setup.executionId ?? `exec-${++executionCounter}`, setup.additionalData),
		setup.mode ?? 'manual',
		createRunExecutionData(),
		0,
		input,
		{ main: [input] },
		Object.assign(entry ?? {}, { node, data: { main: [input] }, source: null }) as IExecuteData,
		[],
	);
	const output = (await nodeType.execute!.call(context)) as INodeExecutionData[][];
	return { output, hints: context.hints.map((h) => h.message) };
}

/** Calls a `methods.listSearch` function the way the editor does. */
export async function listSearch(
	setup: NodeSetup,
	method: string,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { workflow, node } = buildNode(setup);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const context = new LoadOptionsContext(workflow, node, additionalData('load-options'), 'parameters');
	return await nodeType.methods!.listSearch![method].call(context, filter, paginationToken);
}

/** Calls a `methods.loadOptions` function the way the editor does. */
export async function loadOptions(setup: NodeSetup, method: string): Promise<INodePropertyOptions[]> {
	const { workflow, node } = buildNode(setup);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const context = new LoadOptionsContext(workflow, node, additionalData('load-options'), 'parameters');
	return await nodeType.methods!.loadOptions![method].call(context);
}

/** Calls a `methods.resourceMapping` function the way the editor does (the mapper's field list). */
export async function resourceMapping(setup: NodeSetup, method: string): Promise<ResourceMapperFields> {
	const { workflow, node } = buildNode(setup);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const context = new LoadOptionsContext(workflow, node, additionalData('load-options'), 'parameters');
	return await nodeType.methods!.resourceMapping![method].call(context);
}

export interface FakeWebhookRequest {
	headers: Record<string, string>;
	body: unknown;
	rawBody: Buffer;
	query?: IDataObject;
}

export interface FakeWebhookResponse {
	statusCode: number;
	body: unknown;
	ended: boolean;
}

/** Calls `webhook()` of a trigger node as n8n's webhook service does, with a fake req/res pair. */
export async function callWebhook(
	setup: NodeSetup,
	request: FakeWebhookRequest,
	staticData: IDataObject = {},
	/** a waiting execution's node entry, as n8n hands it to a resume (`restartWebhook`) webhook */
	waiting?: { executionId: string; entry: IExecuteData },
) {
	const { workflow, node } = buildNode(setup);
	workflow.staticData = staticData as Workflow['staticData'];
	const response: FakeWebhookResponse = { statusCode: 200, body: undefined, ended: false };
	const res = {
		status(code: number) {
			response.statusCode = code;
			return res;
		},
		send(body?: unknown) {
			response.body = body;
			response.ended = true;
			return res;
		},
		json(body: unknown) {
			response.body = body;
			response.ended = true;
			return res;
		},
		end(body?: unknown) {
			response.body = body ?? response.body;
			response.ended = true;
			return res;
		},
		setHeader() {
			return res;
		},
	};
	const req = {
		headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
		body: request.body,
		rawBody: request.rawBody,
		query: request.query ?? {},
		params: {},
		method: 'POST',
	};
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const webhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: 'svc-messaging',
		webhookDescription: nodeType.description.webhooks?.[0],
		workflowId: workflow.id,
		webhookId: node.webhookId,
	} as unknown as IWebhookData;
	const context = new WebhookContext(
		workflow,
		node,
		additionalData(waiting?.executionId ?? 'webhook', { httpRequest: req, httpResponse: res } as never),
		'webhook',
		webhookData,
		[],
		waiting ? createRunExecutionData({ executionData: { nodeExecutionStack: [waiting.entry] } }) : null,
	);
	const result = await nodeType.webhook!.call(context);
	return { result, response, staticData: workflow.staticData as IDataObject };
}

/** n8n-core's SSH client manager keeps an interval alive; jest needs it stopped to exit. */
export async function shutdownN8nCore() {
	const { SSHClientsManager } = await import('n8n-core/dist/execution-engine/ssh-clients-manager');
	Container.get(SSHClientsManager).onShutdown();
}

// Every jest file that runs a node stops it after its tests, so no file has to remember to; scripts
// run outside jest (bench, adversarial workers) have no afterAll and call shutdownN8nCore themselves.
if (typeof afterAll === 'function') afterAll(shutdownN8nCore);
