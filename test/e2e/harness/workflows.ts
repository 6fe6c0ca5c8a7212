/** Credentials, workflows and executions as n8n's import commands and public API read and write them. */
import { readFileSync } from 'fs';

export interface CredentialJson {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export const CREDENTIAL_IDS = {
	free: 'svcApiFreeKey001',
	starter: 'svcApiStarter001',
	business: 'svcApiBusiness01',
	account: 'svcAccountLogin1',
	broke: 'svcApiBrokeKey01',
} as const;

export const CREDENTIAL_NAMES = {
	free: 'SVC Messaging API (emulator, Free)',
	starter: 'SVC Messaging API (emulator, Starter)',
	business: 'SVC Messaging API (emulator, Business)',
	account: 'SVC Messaging Account (emulator, demo@svc.test)',
	broke: 'SVC Messaging API (emulator, no credits)',
} as const;

/** The webhook secret set on the emulator's demo account and in the API-key credentials. */
export const WEBHOOK_SECRET = 'whsec_svc_e2e_0001';

/** Bearer Auth of the example MCP server (examples/mcp-sms-tools.json): clients send `Authorization: Bearer <token>`. */
export const MCP_EXAMPLE_CREDENTIAL = { id: 'svcMcpBearer0001', name: 'MCP clients (example bearer token)', token: 'svc-mcp-example-token-0001' } as const;

/** The credentials a user would create for the emulator's seeded demo account. */
export function emulatorCredentials(emulatorUrl: string, redis?: { host: string; port: number }): CredentialJson[] {
	// With a Redis (npm run dev, npm run demo): the credential's "Use Redis" on it (Do-Not-Send List, shared limit, ledger).
	const useRedis = redis ? { sharedRateLimit: true, redisHost: redis.host, redisPort: redis.port, redisPrefix: 'svc-messaging' } : {};
	const api = (key: keyof typeof CREDENTIAL_IDS, apiKey: string, plan: string): CredentialJson => ({
		id: CREDENTIAL_IDS[key],
		name: CREDENTIAL_NAMES[key],
		type: 'svcMessagingApi',
		data: { baseUrl: emulatorUrl, apiKey, plan, webhookSecret: WEBHOOK_SECRET, ...useRedis },
	});
	return [
		api('free', 'svc_test_free_0001', 'free'),
		api('starter', 'svc_test_starter_0001', 'starter'),
		api('business', 'svc_test_business_0001', 'business'),
		{ ...api('broke', 'svc_test_broke_0001', 'free'), data: { baseUrl: emulatorUrl, apiKey: 'svc_test_broke_0001', plan: 'free' } },
		{
			id: CREDENTIAL_IDS.account,
			name: CREDENTIAL_NAMES.account,
			type: 'svcMessagingAccountApi',
			data: { baseUrl: emulatorUrl, email: 'demo@svc.test', password: 'demo-password' },
		},
		// The MCP Server Trigger of examples/mcp-sms-tools.json asks MCP clients for this token.
		{ id: MCP_EXAMPLE_CREDENTIAL.id, name: MCP_EXAMPLE_CREDENTIAL.name, type: 'httpBearerAuth', data: { token: MCP_EXAMPLE_CREDENTIAL.token } },
	];
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, any>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	continueOnFail?: boolean;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, any>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

/**
 * What most tests build: a manual trigger (its items, if any, pinned as a form or sheet row would
 * bring them) feeding one SVC Messaging node, version 2, with the Starter key's credential.
 */
export function triggerThenSvcNode(
	name: string,
	trigger: { name: string; items?: Array<Record<string, unknown>> },
	svc: { id: string; name: string; parameters: Record<string, any> },
): WorkflowJson {
	return {
		name,
		nodes: [
			// Not `${svc.id}-…`: n8n 2's canvas then does not show the trigger's pinned items in the node's input panel.
			{ id: `trigger-of-${svc.id}`, name: trigger.name, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: svc.id,
				name: svc.name,
				type: 'n8n-nodes-svc-messaging.svcMessaging',
				typeVersion: 2,
				position: [280, 0],
				credentials: { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } },
				parameters: svc.parameters,
			},
		],
		connections: { [trigger.name]: { main: [[{ node: svc.name, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		...(trigger.items && { pinData: { [trigger.name]: trigger.items.map((json) => ({ json })) } }),
	};
}

export function readWorkflow(path: string): WorkflowJson {
	return JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
}

/**
 * The same workflow, started by a Webhook node (POST /webhook/<path>, answering with every item of
 * the last node) instead of its Manual Trigger, so that a running `n8n start` executes it on
 * request. The Manual Trigger's connections move to the Webhook node; the rest is unchanged.
 */
export function asWebhookWorkflow(workflow: WorkflowJson, path: string): WorkflowJson {
	const copy = structuredClone(workflow);
	const manual = copy.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	const name = manual?.name ?? 'Start';
	const webhook: WorkflowNode = {
		id: manual?.id ?? `webhook-${path}`,
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: manual?.position ?? [0, 0],
		webhookId: `e2e-${path}`,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	};
	copy.nodes = [webhook, ...copy.nodes.filter((n) => n !== manual)];
	if (!manual) throw new Error(`Workflow "${workflow.name}" has no Manual Trigger to replace`);
	return copy;
}

export interface ExecutionItem {
	json: Record<string, any>;
	pairedItem?: unknown;
	error?: Record<string, any>;
}

export interface Execution {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<ExecutionItem[] | null> }; error?: any; executionStatus?: string }>>;
			error?: { message?: string; description?: string; node?: { name?: string } };
			lastNodeExecuted?: string;
		};
	};
}

/** Output items of `node` (output `output`, run `run`) in an execution read with includeData=true. */
export function nodeOutput(execution: Execution, node: string, output = 0, run = -1): ExecutionItem[] {
	const runs = execution.data?.resultData.runData[node];
	if (!runs?.length) return [];
	const taskData = runs.at(run);
	return taskData?.data?.main?.[output] ?? [];
}

/** The index of the input item an output item answers (n8n's pairedItem, in its three shapes). */
export function pairedIndex(item: ExecutionItem): number | undefined {
	const p = item.pairedItem as { item?: number } | Array<{ item?: number }> | number | undefined;
	if (typeof p === 'number') return p;
	if (Array.isArray(p)) return p[0]?.item;
	return p?.item;
}

export function nodeRuns(execution: Execution, node: string) {
	return execution.data?.resultData.runData[node] ?? [];
}

export const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);
