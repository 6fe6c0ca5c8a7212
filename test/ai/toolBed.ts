/**
 * The bed of the "SVC Messaging Tool" suites: the tool in n8n-core's own tool machinery, in-process: the tool variant of the node
 * (built as n8n 1.123's LoadNodesAndCredentials.convertNodeToAiTool builds it), connected to a
 * stand-in for the Tool Executor / AI Agent that asks n8n-core for its tools
 * (`getInputConnectionData('ai_tool')` → createNodeAsTool → makeHandleToolInvocation →
 * SupplyDataContext) and invokes them the way the Tool Executor does. The emulator answers over
 * real HTTP. Real n8n runs the same through test/e2e/ai.e2e.test.ts.
 */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType, INodeTypeDescription, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';

import type { RunningEmulator } from '../emulator';
import { apiKeyData, type ApiKeyOptions } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { additionalData, credentialsHelper } from '../helpers/n8n';
import { DEFAULT_AGENT_MESSAGE_CAP, reserveAgentMessages } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';

export const PACKAGE = 'n8n-nodes-svc-messaging';

/** The tool variant exactly as n8n derives it from a node with `usableAsTool` (n8n 1.123.81). */
function asTool(node: INodeType): INodeType {
	const description: INodeTypeDescription = Object.create(node.description, {
		properties: { value: Object.create(node.description.properties) },
	});
	const tool: INodeType = Object.create(node, { description: { value: description } });
	description.name += 'Tool';
	description.inputs = [];
	description.outputs = [NodeConnectionTypes.AiTool];
	description.displayName += ' Tool';
	delete description.usableAsTool;
	// n8n adds its own "Description" field only when the node has none named toolDescription.
	if (!description.properties.some((p) => p.name === 'toolDescription')) throw new Error('expected the node to define toolDescription');
	return tool;
}

interface InvocableTool {
	name: string;
	description: string;
	invoke(args: IDataObject): Promise<string>;
}

/** Stands in for the Tool Executor: invokes its one connected tool once per input item. */
class ToolCaller implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tool Caller',
		name: 'toolCaller',
		group: ['transform'],
		version: 1,
		description: 'Invokes the connected tool with each item’s args',
		defaults: { name: 'Tool Caller' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tool', required: true, maxConnections: 1 }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tool = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as InvocableTool;
		const out: INodeExecutionData[] = [];
		for (const item of this.getInputData()) {
			const result = await tool.invoke(item.json.args as IDataObject);
			out.push({ json: { name: tool.name, description: tool.description, result: JSON.parse(result) } });
		}
		return [out];
	}
}

export const types: Record<string, INodeType> = {
	[`${PACKAGE}.svcMessaging`]: new SvcMessaging(),
	[`${PACKAGE}.svcMessagingTool`]: asTool(new SvcMessaging()),
	'test.toolCaller': new ToolCaller(),
};
const nodeTypes: INodeTypes = {
	getByName: (type) => types[type] as INodeType | IVersionedNodeType,
	getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(types[type], version),
	getKnownTypes: () => ({}),
};

let emu: RunningEmulator;
let counter = 0;

/** The emulator the tool calls go to: one per file, reset per test. */
export function useToolEmulator(): RunningEmulator {
	emu = useEmulator();
	return emu;
}

export const fromAI = (key: string, description: string, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

export const SMS_SEND = {
	resource: 'sms',
	operation: 'send',
	phoneNumber: fromAI('phone', 'Recipient in E.164'),
	message: fromAI('text', 'SMS text'),
	options: {},
};

interface Setup {
	parameters: IDataObject;
	/** Default: the tool variant. */
	type?: string;
	/** undefined: no execution id (as in an MCP Server Trigger's tool call) */
	executionId?: string | null;
	workflowId?: string;
	/** the credential, when not the seed's Business key (e.g. with the shared Redis) */
	credential?: ApiKeyOptions;
}

/**
 * One execution of Tool Caller → "Send SMS" (a tool): each entry of `calls` is one tool call.
 * Returns what each call gave back (the tool's result, parsed).
 */
export async function callTool(setup: Setup, calls: IDataObject[]): Promise<Array<{ name: string; description: string; result: IDataObject[] }>> {
	const credentialId = `cred-ai-${++counter}`;
	credentialsHelper.set(credentialId, apiKeyData(emu.url, setup.credential));
	const tool: INode = {
		id: 'tool-node',
		name: 'Send SMS',
		type: setup.type ?? `${PACKAGE}.svcMessagingTool`,
		typeVersion: 1,
		position: [0, 200],
		parameters: setup.parameters as INode['parameters'],
		credentials: { svcMessagingApi: { id: credentialId, name: 'SVC' } },
	};
	const caller: INode = { id: 'caller', name: 'Tool Caller', type: 'test.toolCaller', typeVersion: 1, position: [0, 0], parameters: {} };
	const workflow = new Workflow({
		id: setup.workflowId ?? 'workflow-ai',
		name: 'ai',
		nodes: [caller, tool],
		connections: { 'Send SMS': { [NodeConnectionTypes.AiTool]: [[{ node: 'Tool Caller', type: NodeConnectionTypes.AiTool, index: 0 }]] } },
		active: false,
		nodeTypes,
		settings: { timezone: 'Africa/Nairobi' },
	});
	const node = workflow.getNode('Tool Caller')!;
	const input: INodeExecutionData[] = calls.map((args) => ({ json: { args } }));
	const executionId = setup.executionId === null ? undefined : (setup.executionId ?? `exec-ai-${++counter}`);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData(executionId),
		'manual',
		createRunExecutionData(),
		0,
		input,
		{ main: [input] },
		{ node, data: { main: [input] }, source: null },
		[],
	);
	const [out] = (await types['test.toolCaller'].execute!.call(context)) as INodeExecutionData[][];
	return out.map((o) => o.json as never);
}

/**
 * Counts one message for a tool call of another execution (the tool node in n8n-core's real
 * ExecuteContext), without sending: what each of many other agent executions leaves in the count.
 */
const otherWorkflows = new Map<number, Workflow>();

function otherWorkflow(cap: number): Workflow {
	const known = otherWorkflows.get(cap);
	if (known) return known;
	const tool: INode = {
		id: 'other-tool',
		name: 'Other SMS',
		type: `${PACKAGE}.svcMessagingTool`,
		typeVersion: 1,
		position: [0, 0],
		parameters: { ...SMS_SEND, maxMessagesPerExecution: cap } as INode['parameters'],
		credentials: { svcMessagingApi: { id: 'cred-ai-other', name: 'SVC' } },
	};
	const workflow = new Workflow({ id: 'wf-cap-other', name: 'other', nodes: [tool], connections: {}, active: false, nodeTypes });
	otherWorkflows.set(cap, workflow);
	return workflow;
}

export async function reserveInOtherExecution(executionId: string, cap = DEFAULT_AGENT_MESSAGE_CAP) {
	credentialsHelper.set('cred-ai-other', apiKeyData(emu.url));
	const workflow = otherWorkflow(cap);
	const node = workflow.getNode('Other SMS')!;
	const input: INodeExecutionData[] = [{ json: {} }];
	const run = createRunExecutionData();
	const context = new ExecuteContext(workflow, node, additionalData(executionId), 'manual', run, 0, input, { main: [input] }, { node, data: { main: [input] }, source: null }, []);
	return await reserveAgentMessages(context, 1);
}

export const phone = (n: number) => `+25472200${String(1000 + n).padStart(4, '0')}`;

