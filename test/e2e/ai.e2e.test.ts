/**
 * "SVC Messaging Tool" in a real n8n, without a language model:
 * - n8n's Tool Executor (the node that runs a tool with a JSON query) calls the tool, once or in a
 *   loop within one execution (the message cap);
 * - the MCP Server Trigger of examples/mcp-sms-tools.json serves the tools to a real MCP client
 *   (@modelcontextprotocol/sdk, Streamable HTTP transport), which lists them and calls them.
 * Both n8n 1.123.81 and 2.41.1 ship both nodes (@n8n/n8n-nodes-langchain.toolExecutor and .mcpTrigger).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { SEND_TEMPLATE_TOOL_DESCRIPTION, TOOL_DESCRIPTIONS } from '../../nodes/SvcMessaging/actions/tool.descriptions';
import { CAPPED_OPERATIONS } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { BAD_PHONE_REFUSAL } from '../ai/refusals';
import { credential, e2e, expectSuccess, waitFor } from './context';
import { http, MCP_EXAMPLE_CREDENTIAL, nodeRuns, type Execution, type WorkflowJson, type WorkflowNode } from './harness';

const { n8n, emulator, version } = e2e();
const TOOL_TYPE = 'n8n-nodes-svc-messaging.svcMessagingTool';
const MCP_EXAMPLE_ID = 'svcExampleMcpSms';
const MCP_URL = () => `${n8n.url}/mcp/svc-messaging`;

/** Distinct Kenyan mobile numbers for this run (the emulator is shared by the whole suite). */
const base = 700_000 + (Date.now() % 200_000);
const kenyan = (n: number) => `+254722${String(base + n).padStart(6, '0')}`;

const fromAI = (key: string, description: string, type = 'string') => `={{ $fromAI('${key}', \`${description}\`, '${type}') }}`;

function smsTool(name: string, parameters: Record<string, unknown> = {}): WorkflowNode {
	return {
		id: `tool-${name}`,
		name,
		type: TOOL_TYPE,
		typeVersion: 1,
		position: [200, 200],
		credentials: { svcMessagingApi: credential('starter') },
		parameters: {
			resource: 'sms',
			operation: 'send',
			phoneNumber: fromAI('phone', 'Recipient mobile number, e.g. +254712345678'),
			message: fromAI('text', 'The SMS text'),
			options: {},
			...parameters,
		},
	};
}

/**
 * The Tool Executor's query: the arguments themselves (n8n 1.x passes the query to the tool) and
 * under the tool's name (2.x looks the arguments up by tool name). The tool ignores the extra key.
 */
const queryFor = (toolName: string, argsExpression: string) =>
	`={{ JSON.stringify(Object.assign(${argsExpression}, { ${toolName}: ${argsExpression} })) }}`;

/** Manual Trigger → Tool Executor ← tool (ai_tool). */
function toolExecutorWorkflow(tool: WorkflowNode, args: Record<string, unknown>): WorkflowJson {
	const toolName = tool.name.replace(/[^a-zA-Z0-9_-]/g, '_');
	return {
		name: `e2e AI · Tool Executor · ${tool.name}`,
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'executor',
				name: 'Tool Executor',
				type: '@n8n/n8n-nodes-langchain.toolExecutor',
				typeVersion: 1,
				position: [200, 0],
				parameters: { query: queryFor(toolName, JSON.stringify(args)), toolName: '' },
			},
			tool,
		],
		connections: {
			Start: { main: [[{ node: 'Tool Executor', type: 'main', index: 0 }]] },
			[tool.name]: { ai_tool: [[{ node: 'Tool Executor', type: 'ai_tool', index: 0 }]] },
		},
	};
}

/** What the tool answered, per Tool Executor run (the tool's result is a JSON string). */
function toolResults(execution: Execution): Array<Record<string, any>> {
	return nodeRuns(execution, 'Tool Executor').map((run) => {
		const json = run.data?.main?.[0]?.[0]?.json as unknown;
		const parsed = typeof json === 'string' ? JSON.parse(json) : json;
		return Array.isArray(parsed) ? parsed[0] : parsed;
	});
}

async function sendRequests(): Promise<number> {
	return (await emulator.requests()).filter((r: any) => r.method === 'POST' && r.path === '/api/sms/send-api').length;
}

const created: string[] = [];
afterAll(async () => {
	for (const id of created) await n8n.deleteWorkflow(id);
});

async function runOnce(workflow: WorkflowJson): Promise<Execution> {
	const id = await n8n.createWorkflow(workflow);
	created.push(id);
	return expectSuccess(await n8n.runManual(id));
}

describe(`SVC Messaging Tool in n8n ${version}`, () => {
	test('n8n offers it as "SVC Messaging Tool" with the per-operation Description and the message cap', async () => {
		const res = await http<any[]>('GET', `${n8n.url}/types/nodes.json`, undefined, { cookie: n8n.cookie });
		expect(res.status).toBe(200);
		const tool = res.body.find((t) => t.name === TOOL_TYPE);
		expect(tool).toMatchObject({ displayName: 'SVC Messaging Tool', outputs: ['ai_tool'] });
		expect(tool.codex.subcategories.AI).toEqual(['Tools']);
		const descriptions = tool.properties.filter((p: any) => p.name === 'toolDescription');
		const sendDescription = descriptions.find((p: any) => p.displayOptions.show.operation[0] === 'send' && p.displayOptions.show.resource[0] === 'sms');
		expect(sendDescription.default).toBe(TOOL_DESCRIPTIONS.sms.send);
		// The node has its own Description: n8n adds neither its "Set Automatically" selector nor a second field.
		expect(tool.properties.some((p: any) => p.name === 'descriptionType')).toBe(false);
		// Every sending operation has the cap, 10 by default.
		const caps = tool.properties.filter((p: any) => p.name === 'maxMessagesPerExecution');
		expect(new Set(caps.map((p: any) => p.default))).toEqual(new Set([10]));
		for (const [resource, operations] of Object.entries(CAPPED_OPERATIONS)) {
			for (const operation of operations) {
				expect(caps.some((p: any) => p.displayOptions.show.resource.includes(resource) && p.displayOptions.show.operation.includes(operation))).toBe(true);
			}
		}
	});
});

describe('Tool Executor → SVC Messaging Tool (SMS → Send, arguments from $fromAI)', () => {
	test('a national number with Default Country: exactly one message at the service', async () => {
		const national = `0${kenyan(1).slice(4)}`;
		const text = `Your parcel ${base} is on its way`;
		const execution = await runOnce(
			toolExecutorWorkflow(smsTool('Send SMS', { options: { defaultCountry: 'KE' } }), { phone: national, text }),
		);
		const [result] = toolResults(execution);
		expect(result).toMatchObject({ accepted: true, phoneNumber: kenyan(1), messageId: expect.any(String), status: 'PENDING' });
		// The tool's own run, as n8n records it: input from the query, output the response.
		const [toolRun] = nodeRuns(execution, 'Send SMS') as Array<Record<string, any>>;
		expect(toolRun.inputOverride.ai_tool[0][0].json).toMatchObject({ phone: national, text });
		const recorded = await emulator.messages({ phoneNumber: kenyan(1) });
		expect(recorded).toEqual([expect.objectContaining({ messageId: result.messageId, message: text })]);
	});

	test('a bad number: the refusal is the tool result (field and fix), the execution succeeds, nothing is sent', async () => {
		const before = await sendRequests();
		const execution = await runOnce(toolExecutorWorkflow(smsTool('Send SMS'), { phone: '0712', text: 'Hello' }));
		const [result] = toolResults(execution);
		expect(result).toEqual(BAD_PHONE_REFUSAL);
		expect(await sendRequests()).toBe(before);
	});

	test('the message cap: 12 calls of the tool in one execution (a loop) → 10 sent, the 11th and 12th refused', async () => {
		const recipients = Array.from({ length: 12 }, (_, n) => ({ phone: kenyan(100 + n), text: `Reminder ${n + 1}` }));
		const tool = smsTool('Send SMS');
		const workflow: WorkflowJson = {
			name: 'e2e AI · cap in a loop',
			nodes: [
				{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'list',
					name: 'Recipients',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: { mode: 'raw', jsonOutput: JSON.stringify({ recipients }), options: {} },
				},
				{
					id: 'split',
					name: 'Split',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [400, 0],
					parameters: { fieldToSplitOut: 'recipients', options: {} },
				},
				{ id: 'loop', name: 'Loop', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, position: [600, 0], parameters: { batchSize: 1, options: {} } },
				{
					id: 'executor',
					name: 'Tool Executor',
					type: '@n8n/n8n-nodes-langchain.toolExecutor',
					typeVersion: 1,
					position: [800, 0],
					parameters: { query: queryFor('Send_SMS', '({ phone: $json.phone, text: $json.text })'), toolName: '' },
				},
				tool,
			],
			connections: {
				Start: { main: [[{ node: 'Recipients', type: 'main', index: 0 }]] },
				Recipients: { main: [[{ node: 'Split', type: 'main', index: 0 }]] },
				Split: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
				Loop: { main: [[], [{ node: 'Tool Executor', type: 'main', index: 0 }]] },
				'Tool Executor': { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
				'Send SMS': { ai_tool: [[{ node: 'Tool Executor', type: 'ai_tool', index: 0 }]] },
			},
		};
		const execution = await runOnce(workflow);
		const results = toolResults(execution);
		expect(results.map((r) => (r.accepted === true ? 'sent' : r.errorCode))).toEqual([...Array(10).fill('sent'), 'MESSAGE_CAP_REACHED', 'MESSAGE_CAP_REACHED']);
		expect(results[10].errorMessage).toBe(
			'Message limit reached: the SVC Messaging tools may send at most 10 messages in one execution, and 10 were sent already. Nothing was sent.',
		);
		const sent = await Promise.all(recipients.map(async (r) => (await emulator.messages({ phoneNumber: r.phone })).length));
		expect(sent).toEqual([...Array(10).fill(1), 0, 0]);
	});
});

describe('MCP Server Trigger (examples/mcp-sms-tools.json) ← a real MCP client', () => {
	let client: Client;
	const toolCall = async (name: string, args: Record<string, unknown>) => {
		const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
		expect(result.isError ?? false).toBe(false);
		const parsed = JSON.parse(result.content[0].text);
		return (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, any>;
	};

	async function connect(token: string): Promise<Client> {
		const c = new Client({ name: 'svc-messaging-e2e', version: '1.0.0' });
		await c.connect(new StreamableHTTPClientTransport(new URL(MCP_URL()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
		return c;
	}

	beforeAll(async () => {
		// The approved template the example's send_chat_template tool sends, and an opted-in customer.
		const template = await http('POST', `${emulator.url}/api/chat/templates`, {
			name: 'order_ready',
			category: 'UTILITY',
			language: 'en',
			components: [{ type: 'BODY', text: 'Hello {{1}}, your order {{2}} is ready for pickup.' }],
		}, { 'x-api-key': 'svc_test_starter_0001' });
		expect([201, 409]).toContain(template.status);
		await emulator.reviewTemplate('order_ready', 'APPROVED');
		await emulator.control('POST', '/opt-ins', { phoneNumber: kenyan(300), accountId: 'acc_demo' });

		await n8n.activate(MCP_EXAMPLE_ID);
		// The MCP endpoint is live a moment after activation.
		client = await waitFor('the MCP endpoint', async () => await connect(MCP_EXAMPLE_CREDENTIAL.token).catch(() => undefined), 30_000, 250);
	});
	afterAll(async () => {
		await client?.close();
		await n8n.deactivate(MCP_EXAMPLE_ID);
	});

	test('without the bearer token the client is refused', async () => {
		await expect(connect('not-the-token')).rejects.toThrow(/Authorization data is wrong/);
	});

	test('lists the four tools with their names, descriptions and input schemas', async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
		expect(Object.keys(byName).sort()).toEqual(['get_balance', 'get_message_status', 'send_chat_template', 'send_sms']);
		expect(byName.send_sms.description).toBe(TOOL_DESCRIPTIONS.sms.send);
		expect(byName.get_message_status.description).toBe(TOOL_DESCRIPTIONS.sms.getMessage);
		expect(byName.get_balance.description).toBe(TOOL_DESCRIPTIONS.account.getBalance);
		expect(byName.send_chat_template.description).toBe(SEND_TEMPLATE_TOOL_DESCRIPTION);
		expect(byName.send_sms.inputSchema).toMatchObject({
			type: 'object',
			properties: {
				phoneNumber: { type: 'string', description: 'Recipient mobile number in international format, e.g. +254712345678' },
				message: { type: 'string', description: 'The SMS text, up to 1600 characters' },
			},
			required: ['phoneNumber', 'message'],
		});
		expect(byName.get_message_status.inputSchema).toMatchObject({ properties: { messageId: { type: 'string' } }, required: ['messageId'] });
		expect(Object.keys(byName.get_balance.inputSchema.properties ?? {})).toEqual([]);
		expect((byName.send_chat_template.inputSchema.required as string[]).sort()).toEqual(['customerName', 'orderNumber', 'phoneNumber']);
	});

	test('send_sms → one message at the service; get_message_status with its messageId → DELIVERED; get_balance', async () => {
		const text = `Your table for 2 at 19:00 is confirmed (${base})`;
		const sent = await toolCall('send_sms', { phoneNumber: kenyan(200), message: text });
		expect(sent).toMatchObject({ accepted: true, phoneNumber: kenyan(200), messageId: expect.any(String) });
		expect(await emulator.messages({ phoneNumber: kenyan(200) })).toEqual([expect.objectContaining({ messageId: sent.messageId, message: text })]);

		const delivered = await waitFor('the message to be delivered', async () => {
			const status = await toolCall('get_message_status', { messageId: sent.messageId });
			expect(status).toMatchObject({ messageId: sent.messageId, phoneNumber: kenyan(200) });
			return status.status === 'DELIVERED' ? status : undefined;
		});
		expect(delivered.deliveredAt).toEqual(expect.any(String));

		const balance = await toolCall('get_balance', {});
		expect(balance.credits).toBe((await emulator.account('acc_demo')).credits);
	});

	test('send_chat_template → one template message with the variables the model gave', async () => {
		const sent = await toolCall('send_chat_template', { phoneNumber: kenyan(300), customerName: 'Amina', orderNumber: `KE-${base}` });
		expect(sent).toMatchObject({ accepted: true, messageId: expect.any(String) });
		const recorded = await emulator.chatMessages({ phoneNumber: kenyan(300) });
		expect(recorded).toHaveLength(1);
		expect(recorded[0]).toMatchObject({ type: 'template', messageId: sent.messageId });
		expect(JSON.stringify(recorded[0].content)).toContain(`KE-${base}`);
	});

	test('bad input is a tool result the model can act on (not an MCP error); nothing is sent', async () => {
		const before = await sendRequests();
		const refused = await toolCall('send_sms', { phoneNumber: '+1 202 555 0143', message: 'Hello' });
		expect(refused).toMatchObject({ success: false, errorCode: 'INVALID_INPUT', field: 'phoneNumber' });
		expect(refused.errorMessage).toMatch(/^"Phone Number" is not in a supported destination country/);
		const notOptedIn = await toolCall('send_chat_template', { phoneNumber: kenyan(301), customerName: 'Brian', orderNumber: 'KE-1' });
		expect(notOptedIn).toMatchObject({ success: false, errorCode: 'CHAT_OPT_IN_REQUIRED', field: 'phoneNumber' });
		expect(await sendRequests()).toBe(before);
		expect(await emulator.chatMessages({ phoneNumber: kenyan(301) })).toHaveLength(0);
	});

	test('what an execution is for MCP: each tools/call is its own execution, so 11 sends in one session all go out', async () => {
		const phones = Array.from({ length: 11 }, (_, n) => kenyan(400 + n));
		const results = [];
		for (const [n, phone] of phones.entries()) results.push(await toolCall('send_sms', { phoneNumber: phone, message: `Session message ${n + 1}` }));
		expect(results.every((r) => r.accepted === true)).toBe(true);
		// n8n records every tools/call as an execution of its own (mode webhook) holding that one call.
		const phoneOf = (execution: Execution) =>
			nodeRuns(execution, 'send_sms').map((run) => (run as Record<string, any>).inputOverride?.ai_tool?.[0]?.[0]?.json?.phoneNumber as string);
		const executions = await waitFor('one execution per tool call', async () => {
			const list = (await n8n.executions(MCP_EXAMPLE_ID, true)).filter((e) => phoneOf(e).some((p) => phones.includes(p)));
			return list.length >= 11 ? list : undefined;
		});
		expect(executions.map((e) => phoneOf(e)).sort()).toEqual(phones.map((p) => [p]).sort());
		expect(new Set(executions.map((e) => e.mode))).toEqual(new Set(['webhook']));
		for (const phone of phones) expect(await emulator.messages({ phoneNumber: phone })).toHaveLength(1);
	});
});

describe('MCP: the cap bounds each tool call', () => {
	test('a bulk send to 11 numbers through MCP is refused whole (cap 10), 10 go out', async () => {
		const path = `svc-mcp-cap-${base}`;
		const bulk: WorkflowNode = {
			...smsTool('send_bulk_sms', {
				operation: 'sendBulk',
				recipientsSource: 'list',
				recipients: fromAI('recipients', 'Array of mobile numbers in international format', 'json'),
				message: fromAI('message', 'The SMS text'),
			}),
			position: [0, 200],
		};
		delete bulk.parameters.phoneNumber;
		const workflow: WorkflowJson = {
			name: 'e2e AI · MCP bulk cap',
			nodes: [
				{ id: 'mcp', name: 'MCP', type: '@n8n/n8n-nodes-langchain.mcpTrigger', typeVersion: 2, position: [0, 0], webhookId: path, parameters: { path } },
				bulk,
			],
			connections: { send_bulk_sms: { ai_tool: [[{ node: 'MCP', type: 'ai_tool', index: 0 }]] } },
		};
		const id = await n8n.createWorkflow(workflow);
		created.push(id);
		await n8n.activate(id);
		const c = new Client({ name: 'svc-messaging-e2e', version: '1.0.0' });
		await waitFor(
			'the MCP endpoint',
			async () => (await c.connect(new StreamableHTTPClientTransport(new URL(`${n8n.url}/mcp/${path}`))).then(() => true).catch(() => undefined)),
			30_000,
			250,
		);
		try {
			const numbers = (count: number, from: number) => Array.from({ length: count }, (_, n) => kenyan(from + n));
			const call = async (recipients: string[]) => {
				const result = (await c.callTool({ name: 'send_bulk_sms', arguments: { recipients, message: 'Flash sale today' } })) as {
					content: Array<{ text: string }>;
				};
				return JSON.parse(result.content[0].text) as Array<Record<string, any>>;
			};
			const [refused] = await call(numbers(11, 500));
			expect(refused).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
			expect(refused.errorMessage).toBe('This call would send 11 messages, but only 10 of the 10 allowed in one execution are left. Nothing was sent.');
			for (const phone of numbers(11, 500)) expect(await emulator.messages({ phoneNumber: phone })).toHaveLength(0);

			const accepted = await call(numbers(10, 600));
			expect(accepted.map((r) => r.accepted)).toEqual(Array(10).fill(true));
		} finally {
			await c.close();
			await n8n.deactivate(id);
		}
	});
});
