/**
 * "SVC Messaging Tool" in n8n-core's own tool machinery, in-process: the tool variant of the node
 * (built as n8n 1.123's LoadNodesAndCredentials.convertNodeToAiTool builds it), connected to a
 * stand-in for the Tool Executor / AI Agent that asks n8n-core for its tools
 * (`getInputConnectionData('ai_tool')` → createNodeAsTool → makeHandleToolInvocation →
 * SupplyDataContext) and invokes them the way the Tool Executor does. The emulator answers over
 * real HTTP. Real n8n runs the same through test/e2e/ai.e2e.test.ts.
 */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType, INodeTypeDescription, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, NodeOperationError, Workflow } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { TOOL_DESCRIPTIONS } from '../../nodes/SvcMessaging/actions/tool.descriptions';
import { DEFAULT_AGENT_MESSAGE_CAP, messagesCounted, reserveAgentMessages } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';
import { additionalData, credentialsHelper } from '../helpers/n8n';
import { startRedis, type RedisServer } from '../helpers/services';
import { SEED_KEYS, sent } from '../sms/fixtures';

const PACKAGE = 'n8n-nodes-svc-messaging';

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

const types: Record<string, INodeType> = {
	[`${PACKAGE}.svcMessaging`]: new SvcMessaging(),
	[`${PACKAGE}.svcMessagingTool`]: asTool(new SvcMessaging()),
	'test.toolCaller': new ToolCaller(),
};
const nodeTypes: INodeTypes = {
	getByName: (type) => types[type] as INodeType | IVersionedNodeType,
	getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(types[type], version),
	getKnownTypes: () => ({}),
};

const emu = useEmulator();
let counter = 0;

const fromAI = (key: string, description: string, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

const SMS_SEND = {
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
	apiKey?: string;
	/** undefined: no execution id (as in an MCP Server Trigger's tool call) */
	executionId?: string | null;
	workflowId?: string;
	/** more credential fields, e.g. the shared Redis */
	credential?: IDataObject;
}

/**
 * One execution of Tool Caller → "Send SMS" (a tool): each entry of `calls` is one tool call.
 * Returns what each call gave back (the tool's result, parsed).
 */
async function callTool(setup: Setup, calls: IDataObject[]): Promise<Array<{ name: string; description: string; result: IDataObject[] }>> {
	const credentialId = `cred-ai-${++counter}`;
	credentialsHelper.set(credentialId, { baseUrl: emu.url, apiKey: setup.apiKey ?? SEED_KEYS.business, plan: 'business', ...setup.credential });
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

async function reserveInOtherExecution(executionId: string, cap = DEFAULT_AGENT_MESSAGE_CAP) {
	credentialsHelper.set('cred-ai-other', { baseUrl: emu.url, apiKey: SEED_KEYS.business, plan: 'business' });
	const workflow = otherWorkflow(cap);
	const node = workflow.getNode('Other SMS')!;
	const input: INodeExecutionData[] = [{ json: {} }];
	const run = createRunExecutionData();
	const context = new ExecuteContext(workflow, node, additionalData(executionId), 'manual', run, 0, input, { main: [input] }, { node, data: { main: [input] }, source: null }, []);
	return await reserveAgentMessages(context, 1);
}

const phone = (n: number) => `+25472200${String(1000 + n).padStart(4, '0')}`;

describe('SVC Messaging Tool: description and arguments', () => {
	it('gives the model the operation’s own description and the $fromAI arguments', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: phone(1), text: 'Your parcel is on its way' }]);
		expect(call.name).toBe('Send_SMS');
		expect(call.description).toBe(TOOL_DESCRIPTIONS.sms.send);
		expect(call.description).toMatch(/^Sends one SMS to one phone number/);
		expect(call.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: phone(1), messageId: expect.any(String) })]);
		expect(emu.control.messages()).toEqual([expect.objectContaining({ phoneNumber: phone(1), message: 'Your parcel is on its way' })]);
	});

	it('every operation has its own description, shown only in the tool; the cap only on the sending ones', () => {
		const toolProps = types[`${PACKAGE}.svcMessagingTool`].description.properties;
		const regular = types[`${PACKAGE}.svcMessaging`].description;
		const operations = regular.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => (p.options as Array<{ value: string }>).map((o) => `${String(p.displayOptions!.show!.resource![0])}.${o.value}`));
		const described = toolProps
			.filter((p) => p.name === 'toolDescription')
			.map((p) => `${String(p.displayOptions!.show!.resource![0])}.${String(p.displayOptions!.show!.operation![0])}`);
		expect(operations.filter((o) => !described.includes(o))).toEqual([]);
		expect(new Set(described).size).toBe(described.length);
		for (const p of toolProps.filter((q) => ['toolDescription', 'maxMessagesPerExecution'].includes(q.name))) {
			expect(p.displayOptions!.show!['@tool']).toEqual([true]);
		}
		const cap = toolProps.filter((p) => p.name === 'maxMessagesPerExecution');
		expect(cap.map((p) => [p.default, p.displayOptions!.show!.resource, p.displayOptions!.show!.operation])).toEqual([
			[DEFAULT_AGENT_MESSAGE_CAP, ['sms'], ['send', 'sendBulk', 'sendAndWaitForDelivery']],
			[DEFAULT_AGENT_MESSAGE_CAP, ['chatMessage'], ['send']],
			// Node version 2's Send Template sends too.
			[DEFAULT_AGENT_MESSAGE_CAP, ['chatMessage'], ['sendTemplate']],
		]);
		expect(cap[2].displayOptions!.show!['@version']).toEqual([2]);
	});

	it('a national number works with the tool’s Default Country', async () => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, options: { defaultCountry: 'KE' } } }, [{ phone: '0722 001 234', text: 'Habari' }]);
		expect(call.result[0]).toMatchObject({ accepted: true, phoneNumber: '+254722001234' });
		expect(emu.control.messages()).toEqual([expect.objectContaining({ phoneNumber: '+254722001234' })]);
	});
});

describe('SVC Messaging Tool: refusals are the tool’s result', () => {
	it('a bad number: the field (the $fromAI key), the rule and the fix; nothing sent', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: '0712', text: 'Hello' }]);
		expect(call.result).toEqual([
			{
				success: false,
				errorCode: 'INVALID_INPUT',
				category: 'INVALID_INPUT',
				retryable: false,
				errorMessage: expect.stringMatching(/^"Phone Number" must be in E\.164 format/),
				field: 'phone',
				fix: expect.stringMatching(/Call the tool again with a corrected "phone"\. Nothing was sent\./),
			},
		]);
		expect(sent(emu)).toHaveLength(0);
	});

	it('a message too long names the message argument', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: phone(2), text: 'x'.repeat(1601) }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_INPUT', field: 'text' });
		expect(call.result[0].errorMessage).toMatch(/"Message" must be at most 1600 characters/);
		expect(sent(emu)).toHaveLength(0);
	});

	it('a value fixed in the workflow (not from the model) is named as such', async () => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, senderId: { __rl: true, mode: 'id', value: 'bad sender!' } } }, [
			{ phone: phone(3), text: 'Hello' },
		]);
		expect(call.result[0]).toMatchObject({ success: false, field: 'Sender ID' });
		expect(call.result[0].fix).toMatch(/"Sender ID" is set in the n8n workflow, not by a tool argument/);
		expect(sent(emu)).toHaveLength(0);
	});

	it("the service's refusal (no credits) with its code and what to do", async () => {
		const [call] = await callTool({ parameters: SMS_SEND, apiKey: SEED_KEYS.broke }, [{ phone: phone(4), text: 'Hello' }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INSUFFICIENT_CREDITS' });
		expect(call.result[0].fix).toMatch(/Top up credits/);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('a message ID that does not exist names the messageId argument', async () => {
		const [call] = await callTool({ parameters: { resource: 'sms', operation: 'getMessage', messageId: fromAI('messageId', 'From a send') } }, [
			{ messageId: 'msg_does_not_exist' },
		]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'NOT_FOUND', field: 'messageId' });
	});

	it('as a node of the execution (n8n’s Agent V3 engine runs tool calls that way): the refusal is the output, not a failure', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: '+1 555 0100', text: 'Hello' }]);
		expect(call.result[0]).toMatchObject({ success: false, field: 'phone' });
		// The same node type run directly in an ExecuteContext (no SupplyDataContext).
		const { executeNode } = await import('../helpers/n8n');
		const { registerNodeType } = await import('../helpers/n8n');
		registerNodeType('svcMessagingTool', types[`${PACKAGE}.svcMessagingTool`]);
		const [out] = await executeNode(
			{
				type: `${PACKAGE}.svcMessagingTool`,
				parameters: { ...SMS_SEND, phoneNumber: '={{ $json.phone }}', message: '={{ $json.text }}' },
				credentials: { svcMessagingApi: { baseUrl: emu.url, apiKey: SEED_KEYS.business, plan: 'business' } },
			},
			[{ phone: '0712', text: 'Hello', toolCallId: 'call_1' }],
		);
		expect(out).toEqual([{ json: expect.objectContaining({ success: false, field: 'Phone Number' }), pairedItem: { item: 0 } }]);
		expect(sent(emu)).toHaveLength(0);
	});
});

describe('SVC Messaging Tool: the message cap per execution', () => {
	it('default 10: the 11th and 12th calls of one execution are refused, nothing more is sent; a new execution starts again', async () => {
		const calls = Array.from({ length: 12 }, (_, n) => ({ phone: phone(10 + n), text: `Reminder ${n}` }));
		const results = await callTool({ parameters: SMS_SEND, executionId: 'exec-cap-1' }, calls);
		expect(results.map((r) => r.result[0].accepted === true)).toEqual([...Array(10).fill(true), false, false]);
		expect(results[10].result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
		expect(results[10].result[0].errorMessage).toBe(
			'Message limit reached: the SVC Messaging tools may send at most 10 messages in one execution, and 10 were sent already. Nothing was sent.',
		);
		expect(results[11].result[0].fix).toMatch(/Do not call a sending tool again in this run: tell the user/);
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual(calls.slice(0, 10).map((c) => c.phone));

		const next = await callTool({ parameters: SMS_SEND, executionId: 'exec-cap-2' }, [{ phone: phone(30), text: 'Next run' }]);
		expect(next[0].result[0]).toMatchObject({ accepted: true });
	});

	it('counts over several tool nodes and calls of one execution (the same execution id)', async () => {
		await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-shared' }, [
			{ phone: phone(40), text: 'a' },
			{ phone: phone(41), text: 'b' },
		]);
		const [third, fourth] = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-shared' }, [
			{ phone: phone(42), text: 'c' },
			{ phone: phone(43), text: 'd' },
		]);
		expect(third.result[0]).toMatchObject({ accepted: true });
		expect(fourth.result[0]).toMatchObject({ errorCode: 'MESSAGE_CAP_REACHED' });
		expect(emu.control.messages()).toHaveLength(3);
	});

	it('a cap holds whatever else ran: cap 3, then 10,001 other executions count a message each, then 3 more calls: none sent', async () => {
		const setup = { parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-cap-long', workflowId: 'wf-cap-long' };
		const before = await callTool(setup, [0, 1, 2].map((n) => ({ phone: phone(110 + n), text: `first ${n}` })));
		expect(before.map((call) => call.result[0].accepted)).toEqual([true, true, true]);
		// Other executions' tool calls, each counting one message in this process (more than the old 10,000 bound).
		const others = 10_001;
		for (let n = 0; n < others; n++) await reserveInOtherExecution(`exec-other-${n}`);
		expect(messagesCounted('wf-cap-other', `exec-other-${others - 1}`)).toBe(1);
		const after = await callTool(setup, [0, 1, 2].map((n) => ({ phone: phone(120 + n), text: `later ${n}` })));
		expect(after.map((call) => call.result[0].errorCode)).toEqual(Array(3).fill('MESSAGE_CAP_REACHED'));
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([110, 111, 112].map(phone));
		expect(messagesCounted('wf-cap-long', 'exec-cap-long')).toBe(3);
	}, 120_000);

	it('memory stays bounded: at 100,000 executions counted in the last hour a new capped call is refused before sending; counts idle an hour make room; none outlive 24 h', async () => {
		const realNow = Date.now.bind(Date);
		let shift = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
		try {
			// Another day: every count of the other tests is past its 24 h.
			shift = 25 * 3600 * 1000;
			// Uncapped tool calls (0) count too (several tools of one execution count together): the quickest way to fill.
			for (let n = 0; n < 100_000; n++) await reserveInOtherExecution(`exec-bound-${n}`, 0);
			const refused = await reserveInOtherExecution('exec-bound-full').catch((error: NodeOperationError) => error);
			expect(refused).toBeInstanceOf(NodeOperationError);
			expect((refused as NodeOperationError).message).toMatch(/^Message limit not counted: this n8n process already counts the messages of 100000 executions/);
			expect((refused as NodeOperationError).context.errorCode).toBe('MESSAGE_CAP_REACHED');
			// Without a cap (0) the call is not refused; its count is kept nowhere.
			await expect(reserveInOtherExecution('exec-bound-uncapped', 0)).resolves.toBeDefined();
			expect(messagesCounted('wf-cap-other', 'exec-bound-uncapped')).toBe(0);
			// The counts that were already there stay whole.
			expect(messagesCounted('wf-cap-other', 'exec-bound-0')).toBe(1);
			// An hour later the oldest idle count makes room for a new execution.
			shift += 3600 * 1000 + 1000;
			await reserveInOtherExecution('exec-bound-later');
			expect([messagesCounted('wf-cap-other', 'exec-bound-0'), messagesCounted('wf-cap-other', 'exec-bound-later')]).toEqual([0, 1]);
			expect(messagesCounted('wf-cap-other', 'exec-bound-1')).toBe(1);
			// A day after, every count is gone (the first call of the day forgets them).
			shift += 24 * 3600 * 1000;
			await reserveInOtherExecution('exec-bound-next-day');
			expect(messagesCounted('wf-cap-other', 'exec-bound-99999')).toBe(0);
		} finally {
			clock.mockRestore();
		}
	}, 180_000);

	it.each([[-1], ['ten'], [''], [2.5], ['={{ -3 }}']])('"Max Messages per Execution" of %j fails closed: refused, nothing sent', async (cap) => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: cap } }, [{ phone: phone(95), text: 'capped?' }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_INPUT' });
		expect(call.result[0].errorMessage).toMatch(/^"Max Messages per Execution" must be a whole number: 0 for no limit/);
		expect(emu.control.messages()).toHaveLength(0);
	});

	describe('with the credential’s shared Redis (queue mode: the calls of one execution may run on any worker)', () => {
		let redis: RedisServer;
		const shared = (port: number): IDataObject => ({ sharedRateLimit: true, redisHost: '127.0.0.1', redisPort: port, redisPrefix: 'svc-agent-cap' });
		beforeAll(async () => {
			redis = await startRedis();
		}, 60_000);
		afterAll(async () => {
			await closeSharedLimiters();
			await closeRedisClients();
			await redis.stop();
		});

		it('counts in Redis, not in the process: the third message of a cap of 2 is refused, nothing counted locally', async () => {
			const setup = { parameters: { ...SMS_SEND, maxMessagesPerExecution: 2 }, executionId: 'exec-redis-cap', workflowId: 'wf-redis-cap', credential: shared(redis.port) };
			const first = await callTool(setup, [{ phone: phone(60), text: 'a' }]);
			const [second, third] = await callTool(setup, [
				{ phone: phone(61), text: 'b' },
				{ phone: phone(62), text: 'c' },
			]);
			expect(first[0].result[0]).toMatchObject({ accepted: true });
			expect(second.result[0]).toMatchObject({ accepted: true });
			expect(third.result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
			expect(messagesCounted('wf-redis-cap', 'exec-redis-cap')).toBe(0);
			expect(emu.control.messages()).toHaveLength(2);
		});

		it('fails closed when that Redis cannot be reached: refused, nothing sent', async () => {
			const setup = { parameters: SMS_SEND, executionId: 'exec-redis-down', credential: shared(redis.port + 1) };
			const [call] = await callTool(setup, [{ phone: phone(63), text: 'd' }]);
			expect(call.result[0]).toMatchObject({ success: false });
			expect(String(call.result[0].errorMessage)).toMatch(/Redis at 127\.0\.0\.1/);
			expect(emu.control.messages()).toHaveLength(0);
		}, 30_000);
	});

	it('a bulk call that would go past the cap is refused whole: nothing sent', async () => {
		const bulk = {
			resource: 'sms',
			operation: 'sendBulk',
			recipientsSource: 'list',
			recipients: fromAI('recipients', 'Array of E.164 numbers', 'json'),
			message: fromAI('text', 'SMS text'),
			maxMessagesPerExecution: 3,
			options: {},
		};
		const [refused, accepted] = await callTool({ parameters: bulk }, [
			{ recipients: [phone(50), phone(51), phone(52), phone(53)], text: 'Sale today' },
			{ recipients: [phone(54), phone(55), phone(56)], text: 'Sale today' },
		]);
		expect(refused.result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
		expect(refused.result[0].errorMessage).toBe('This call would send 4 messages, but only 3 of the 3 allowed in one execution are left. Nothing was sent.');
		expect(accepted.result.map((r) => r.accepted)).toEqual([true, true, true]);
		expect(emu.control.messages().map((m) => m.phoneNumber).sort()).toEqual([phone(54), phone(55), phone(56)]);
	});

	it('messages the service refused do not count; 0 means no cap', async () => {
		const checkOnlyFormat = { ...SMS_SEND, maxMessagesPerExecution: 1, options: { numberCheck: 'format' } };
		// +1…: passes the E.164 format check, refused by the service (not a supported country).
		const [refused, sentOne, capped] = await callTool({ parameters: checkOnlyFormat }, [
			{ phone: '+12025550143', text: 'x' },
			{ phone: phone(60), text: 'y' },
			{ phone: phone(61), text: 'z' },
		]);
		expect(refused.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_PHONE_NUMBER', field: 'phone' });
		expect(sentOne.result[0]).toMatchObject({ accepted: true });
		expect(capped.result[0]).toMatchObject({ errorCode: 'MESSAGE_CAP_REACHED' });

		const unlimited = await callTool(
			{ parameters: { ...SMS_SEND, maxMessagesPerExecution: 0 } },
			Array.from({ length: 12 }, (_, n) => ({ phone: phone(70 + n), text: 'no cap' })),
		);
		expect(unlimited.every((r) => r.result[0].accepted === true)).toBe(true);
	});

	it('without an execution id (an MCP Server Trigger call) each call is its own scope, and an identical message is sent again', async () => {
		const call = { phone: phone(90), text: 'Same text' };
		const first = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 1 }, executionId: null, workflowId: 'workflow-mcp' }, [call]);
		const second = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 1 }, executionId: null, workflowId: 'workflow-mcp' }, [call]);
		expect([first[0].result[0].accepted, second[0].result[0].accepted]).toEqual([true, true]);
		expect(second[0].result[0].alreadySent).toBeUndefined();
		expect(second[0].result[0].messageId).not.toBe(first[0].result[0].messageId);
		expect(emu.control.messages()).toHaveLength(2);
	});

	it('outside a tool call nothing is counted: the regular node sends 12 items', async () => {
		const { executeNode } = await import('../helpers/n8n');
		const [out] = await executeNode(
			{
				parameters: { ...SMS_SEND, phoneNumber: '={{ $json.phone }}', message: 'Hello', maxMessagesPerExecution: 1 },
				credentials: { svcMessagingApi: { baseUrl: emu.url, apiKey: SEED_KEYS.business, plan: 'business' } },
			},
			Array.from({ length: 12 }, (_, n) => ({ phone: phone(100 + n) })),
		);
		expect(out.every((o) => o.json.accepted === true)).toBe(true);
		expect(emu.control.messages()).toHaveLength(12);
	});
});

describe('SVC Messaging Tool: Send and Wait for Delivery', () => {
	const sendAndWait = (extra: IDataObject = {}) => ({
		...SMS_SEND,
		operation: 'sendAndWaitForDelivery',
		waitMode: 'polling',
		timeout: 30,
		options: { pollInterval: 1 },
		...extra,
	});

	it('polling: the answer holds the final status, "Not Delivered" included (a tool answers with one list)', async () => {
		// The emulator fails numbers ending 999 (DESTINATION_NOT_REACHABLE).
		const [delivered, failed] = await callTool({ parameters: sendAndWait() }, [
			{ phone: phone(200), text: 'Code 1234' },
			{ phone: '+254722000999', text: 'Code 5678' },
		]);
		expect(delivered.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: phone(200), status: 'DELIVERED' })]);
		expect(failed.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: '+254722000999', status: 'FAILED' })]);
	});

	it('counts against the cap like Send', async () => {
		const results = await callTool({ parameters: sendAndWait({ maxMessagesPerExecution: 1 }) }, [
			{ phone: phone(201), text: 'a' },
			{ phone: phone(202), text: 'b' },
		]);
		expect(results.map((r) => r.result[0].status ?? r.result[0].errorCode)).toEqual(['DELIVERED', 'MESSAGE_CAP_REACHED']);
		expect(emu.control.messages()).toHaveLength(1);
	});

	it('"Delivery Report (Webhook)" cannot pause a tool call: refused before sending', async () => {
		const [call] = await callTool({ parameters: sendAndWait({ waitMode: 'webhook' }) }, [{ phone: phone(203), text: 'c' }]);
		expect(call.result).toEqual([
			expect.objectContaining({
				success: false,
				errorCode: 'INVALID_INPUT',
				field: 'Wait Using',
				errorMessage: '"Wait Using" must be Polling when SVC Messaging runs as a tool: a tool call cannot pause for delivery reports',
			}),
		]);
		expect(sent(emu)).toHaveLength(0);
	});
});
