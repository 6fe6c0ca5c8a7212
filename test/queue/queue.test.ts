/**
 * n8n 1.123.81 in queue mode (main + 2 workers, Redis, PostgreSQL) against the emulator: several
 * executions on one API key at the same time, run by different worker processes, keep to the
 * plan's rate together when the credential's shared rate limit is on. See ./README.md.
 */
import { PLAN_LIMITS } from '../emulator/limits';
import { CREDENTIAL_IDS, CREDENTIAL_NAMES, http, NODE_TYPE, waitFor, WEBHOOK_SECRET, type Execution, type N8n, type WorkflowJson } from '../e2e/harness';
import { startReceiver } from '../trigger/harness';
import { SHARED_CREDENTIALS, startQueueStack, type QueueStack } from './queueStack';

const verbose = process.env.QUEUE_VERBOSE === '1';
const say = (line: string) => process.stdout.write(`${line}\n`);

const FREE_EXECUTIONS = 4;
const FREE_ITEMS = 100;
const BULK_EXECUTIONS = 3;
const BULK_RECIPIENTS = 3_000;

type Credential = { id: string; name: string };

// ---------------------------------------------------------------------------------------------
// Workflows: Webhook (answers at once) → Split Out body.items → SVC Messaging

function webhookWorkflow(name: string, path: string, sendNode: WorkflowJson['nodes'][number]): WorkflowJson {
	return {
		name,
		nodes: [
			{
				name: 'Input',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: path,
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{ name: 'Items', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [220, 0], parameters: { fieldToSplitOut: 'body.items', options: {} } },
			sendNode,
		],
		connections: {
			Input: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: sendNode.name, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** SMS → Send, one message per item (no Continue On Fail: a failed item fails the execution). */
function smsSendWorkflow(path: string, credential: Credential): WorkflowJson {
	return webhookWorkflow(`Queue · SMS Send · ${path}`, path, {
		name: 'Send SMS',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [440, 0],
		credentials: { svcMessagingApi: credential },
		parameters: {
			resource: 'sms',
			operation: 'send',
			phoneNumber: '={{ $json.phone }}',
			message: '={{ $json.text }}',
			senderId: { __rl: true, mode: 'id', value: 'SVCTEST' },
			checkBalance: false,
			options: { defaultCountry: 'KE', reference: '={{ $json.ref }}' },
		},
	});
}

/** SMS → Send Bulk, one recipient per item. */
function smsSendBulkWorkflow(path: string, credential: Credential): WorkflowJson {
	return webhookWorkflow(`Queue · SMS Send Bulk · ${path}`, path, {
		name: 'Send Bulk',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [440, 0],
		credentials: { svcMessagingApi: credential },
		parameters: {
			resource: 'sms',
			operation: 'sendBulk',
			recipientsSource: 'items',
			phoneNumber: '={{ $json.phone }}',
			variablesSource: 'none',
			message: 'Your parcel is on its way',
			senderId: { __rl: true, mode: 'id', value: 'SVCTEST' },
			checkBalance: false,
			options: { reference: '={{ $json.ref }}' },
		},
	});
}

// ---------------------------------------------------------------------------------------------
// Distinct numbers and a reference per execution

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** The i-th number of a block: +2547PB + 6 digits, never ending in 997-999 (the emulator's special endings). */
function phone(prefix: string, block: number, i: number): string {
	const n = Math.floor(i / 900) * 1000 + (i % 900);
	return `+2547${prefix}${block}${pad(n, 6)}`;
}

interface Planned {
	ref: string;
	phones: string[];
	body: { items: Array<Record<string, string>> };
}

function plan(tag: string, kind: 'free' | 'bulk', executions: number, items: number): Planned[] {
	return Array.from({ length: executions }, (_, e) => {
		const ref = `${tag}-${kind}-${e + 1}`;
		const phones = Array.from({ length: items }, (_, i) => phone(kind === 'free' ? '1' : '2', e, i));
		const rows = phones.map((p, i): Record<string, string> => (kind === 'free' ? { phone: p, text: `Queue test ${ref} #${i + 1}`, ref } : { phone: p, ref }));
		return { ref, phones, body: { items: rows } };
	});
}

// ---------------------------------------------------------------------------------------------
// Running and reading back

async function createActive(n8n: N8n, workflow: WorkflowJson): Promise<{ id: string; path: string }> {
	const path = workflow.nodes[0].parameters.path as string;
	const id = await n8n.createWorkflow(workflow);
	await n8n.activate(id);
	await n8n.waitForWebhook(path);
	return { id, path };
}

const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);

/**
 * Waits for `count` finished executions of the workflow (the public API lists an execution once
 * the main process no longer counts it as active). On time-out the error tells what n8n said.
 */
async function finishedExecutions(stack: QueueStack, workflowId: string, count: number, timeoutMs: number): Promise<Execution[]> {
	const { main } = stack;
	try {
		return await waitFor(
			`${count} finished execution(s) of workflow ${workflowId}`,
			async () => {
				const list = await main.executions(workflowId, false);
				const done = list.filter((e) => FINAL.has(e.status));
				return done.length >= count ? done : undefined;
			},
			timeoutMs,
			1_000,
		);
	} catch (error) {
		const listed = await main.executions(workflowId, false).catch(() => []);
		const running = await main.api<{ data: Execution[] }>('GET', `/executions?workflowId=${workflowId}&status=running`).catch(() => ({ data: [] }));
		const errors = [main, ...stack.workers].map((n8n, i) => {
			const lines = n8n.logLines().filter((l) => /"level":"(error|warn)"/.test(l) && !/unknown webhook|not registered for GET|deprecations/.test(l));
			return `${i === 0 ? 'main' : `worker ${i}`}: ${lines.slice(-10).map((l) => l.slice(0, 300)).join('\n  ') || '(no errors logged)'}`;
		});
		throw new Error(
			`${(error as Error).message}\nlisted: ${listed.map((e) => `${e.id}:${e.status}`).join(', ') || 'none'}; ` +
				`running: ${running.data.map((e) => e.id).join(', ') || 'none'}\n${errors.join('\n')}`,
		);
	}
}

interface WorkerRun {
	worker: number;
	executionId: string;
	jobId: string;
}

/** The executions each worker says it ran: its "Worker started execution <id> (job <n>)" log line. */
function workerRuns(workers: N8n[]): WorkerRun[] {
	const runs: WorkerRun[] = [];
	workers.forEach((worker, index) => {
		for (const line of worker.logLines()) {
			const match = /Worker started execution (\d+) \(job (\d+)\)/.exec(line);
			if (match) runs.push({ worker: index + 1, executionId: match[1], jobId: match[2] });
		}
	});
	return runs;
}

/** Executions the main process put on the queue: its "Enqueued execution <id> (job <n>)" log line. */
function enqueuedByMain(main: N8n): Set<string> {
	const ids = new Set<string>();
	for (const line of main.logLines()) {
		const match = /Enqueued execution (\d+) \(job (\d+)\)/.exec(line);
		if (match) ids.add(match[1]);
	}
	return ids;
}

interface RequestRecord {
	method: string;
	path: string;
	status: number | null;
	errorCode: string | null;
	time: string;
}

interface MessageRecord {
	messageId: string;
	phoneNumber: string;
	reference: string | null;
	createdAt: string;
}

/** Most starts inside any window of `windowMs` (sorted times in ms). */
function maxInWindow(times: number[], windowMs: number): number {
	let best = 0;
	for (let i = 0, j = 0; j < times.length; j++) {
		while (times[j] - times[i] >= windowMs) i++;
		best = Math.max(best, j - i + 1);
	}
	return best;
}

interface BatchResult {
	wallMs: number;
	executions: Array<Execution & { kind: 'free' | 'bulk'; ref: string }>;
	requests: RequestRecord[];
	sendRequests: RequestRecord[];
	rateLimited: RequestRecord[];
	messages: MessageRecord[];
	free: { planned: Planned[]; messages: MessageRecord[]; ratePerSecond: number; maxPerSecond: number; spanMs: number };
	bulk: { planned: Planned[]; messages: MessageRecord[] };
	runs: WorkerRun[];
	enqueued: Set<string>;
}

/**
 * Resets the emulator, then starts `free` executions of SMS Send (100 items each) and `bulk`
 * executions of Send Bulk (3,000 recipients each) at the same time, waits for all of them, and
 * reads back executions, worker logs, the emulator's request log and its recorded messages.
 */
async function runBatch(
	stack: QueueStack,
	options: { tag: string; freeCredential: Credential; bulkCredential?: Credential; bulkExecutions: number },
): Promise<BatchResult> {
	const { main, emulator } = stack;
	await emulator.client.reset();
	// Enough credits for every message (the demo account starts with 1,000), webhook secret as set up.
	await emulator.client.patchAccount('acc_demo', { credits: 1_000_000 });
	const freePlanned = plan(options.tag, 'free', FREE_EXECUTIONS, FREE_ITEMS);
	const bulkPlanned = plan(options.tag, 'bulk', options.bulkExecutions, BULK_RECIPIENTS);
	const freeWf = await createActive(main, smsSendWorkflow(`queue-${options.tag}-free`, options.freeCredential));
	const bulkWf = options.bulkExecutions
		? await createActive(main, smsSendBulkWorkflow(`queue-${options.tag}-bulk`, options.bulkCredential ?? options.freeCredential))
		: undefined;

	// Every execution requested at once; the Webhook answers when the execution is queued.
	const t0 = Date.now();
	const posts = [
		...freePlanned.map((p) => http('POST', `${main.url}/webhook/${freeWf.path}`, p.body)),
		...(bulkWf ? bulkPlanned.map((p) => http('POST', `${main.url}/webhook/${bulkWf.path}`, p.body)) : []),
	];
	for (const answer of await Promise.all(posts)) {
		if (answer.status !== 200) throw new Error(`Webhook answered ${answer.status}: ${answer.text.slice(0, 300)}`);
	}
	const listed = [
		// ~80 s at the Free rate (400 requests at 5/s); bulk executions take seconds.
		...(await finishedExecutions(stack, freeWf.id, FREE_EXECUTIONS, 240_000)),
		...(bulkWf ? await finishedExecutions(stack, bulkWf.id, options.bulkExecutions, 60_000) : []),
	];
	const wallMs = Math.max(...listed.map((e) => Date.parse(e.stoppedAt ?? ''))) - t0;

	// Each execution with its data, told apart by the reference its input carried.
	const executions: BatchResult['executions'] = [];
	for (const { id } of listed) {
		const execution = await main.execution(id);
		const input = execution.data?.resultData.runData.Items?.[0]?.data?.main?.[0] ?? [];
		const ref = String(input[0]?.json.ref ?? '');
		executions.push({ ...execution, kind: ref.includes('-bulk-') ? 'bulk' : 'free', ref });
	}

	const requests = await emulator.client.requests();
	const sendRequests = (requests as RequestRecord[])
		.filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api')
		.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
	if (process.env.QUEUE_TIMELINE) {
		const first = Date.parse(sendRequests[0]?.time ?? '');
		const lines = sendRequests.slice(0, Number(process.env.QUEUE_TIMELINE) || 40).map((r) => `  +${Date.parse(r.time) - first} ms ${r.status}`);
		say(`[queue] ${options.tag}: first send requests\n${lines.join('\n')}`);
	}
	const messages = (await emulator.client.messages()) as MessageRecord[];
	const refs = (planned: Planned[]) => new Set(planned.map((p) => p.ref));
	const freeRefs = refs(freePlanned);
	const freeMessages = messages.filter((m) => m.reference !== null && freeRefs.has(m.reference));
	// One Free request per Free message: their creation times are the key's accepted request times.
	const freeTimes = freeMessages.map((m) => Date.parse(m.createdAt)).sort((a, b) => a - b);
	const spanMs = freeTimes.length > 1 ? freeTimes[freeTimes.length - 1] - freeTimes[0] : 0;
	const bulkRefs = refs(bulkPlanned);
	return {
		wallMs,
		executions,
		requests: requests as RequestRecord[],
		sendRequests,
		rateLimited: (requests as RequestRecord[]).filter((r) => r.status === 429),
		messages,
		free: {
			planned: freePlanned,
			messages: freeMessages,
			ratePerSecond: spanMs > 0 ? ((freeTimes.length - 1) * 1000) / spanMs : 0,
			maxPerSecond: maxInWindow(freeTimes, 1000),
			spanMs,
		},
		bulk: { planned: bulkPlanned, messages: messages.filter((m) => m.reference !== null && bulkRefs.has(m.reference)) },
		runs: workerRuns(stack.workers),
		enqueued: enqueuedByMain(stack.main),
	};
}

/** Planned (reference, phone) pairs recorded 0 or more than 1 times; messages nobody planned. */
function exactlyOnce(planned: Planned[], messages: MessageRecord[]) {
	const count = new Map<string, number>();
	for (const m of messages) count.set(`${m.reference}|${m.phoneNumber}`, (count.get(`${m.reference}|${m.phoneNumber}`) ?? 0) + 1);
	const expected = new Set(planned.flatMap((p) => p.phones.map((ph) => `${p.ref}|${ph}`)));
	const missing = [...expected].filter((k) => !count.has(k));
	const duplicated = [...count].filter(([k, n]) => expected.has(k) && n > 1).map(([k, n]) => `${k} ×${n}`);
	const unexpected = [...count.keys()].filter((k) => !expected.has(k));
	return { expected: expected.size, missing, duplicated, unexpected };
}

function figures(label: string, result: BatchResult, stack: QueueStack): string {
	const byWorker = stack.workers.map((_, i) => {
		const ids = new Set(result.executions.map((e) => e.id));
		return `worker ${i + 1}: ${result.runs.filter((r) => r.worker === i + 1 && ids.has(r.executionId)).length}`;
	});
	const freeRate = PLAN_LIMITS.free.requestsPerSecond;
	const bulkCalls = result.sendRequests.filter((r) => r.status !== null && r.status < 300).length - result.free.messages.length;
	// Both keys end in 0001 (the request log keeps the last 4 characters): a 429 is told apart by
	// reasoning instead. The Starter key's window allows 20 requests and sees at most 9 bulk calls,
	// so it cannot be refused: every 429 is the Free key's.
	const first = result.sendRequests.length ? Date.parse(result.sendRequests[0].time) : 0;
	const offsets = result.rateLimited.slice(0, 8).map((r) => `+${((Date.parse(r.time) - first) / 1000).toFixed(2)} s`);
	return (
		`[queue] ${label}: wall ${(result.wallMs / 1000).toFixed(1)} s, ${result.requests.length} requests ` +
		`(${result.sendRequests.length} sends), ${result.rateLimited.length} × 429` +
		(offsets.length ? ` (at ${offsets.join(', ')}${result.rateLimited.length > offsets.length ? ', …' : ''} after the first send)` : '') +
		'; ' +
		`Free ${result.free.messages.length} sends in ${(result.free.spanMs / 1000).toFixed(1)} s = ${result.free.ratePerSecond.toFixed(2)}/s ` +
		`(plan ${freeRate}/s, most in any 1 s: ${result.free.maxPerSecond})` +
		(result.bulk.planned.length ? `; Starter ${bulkCalls} bulk calls, ${result.bulk.messages.length} recipients` : '') +
		`; executions ${byWorker.join(', ')}`
	);
}

// ---------------------------------------------------------------------------------------------

describe('n8n 1.123.81 queue mode: main + 2 workers + 2 webhook processes, Redis, PostgreSQL', () => {
	let stack: QueueStack | undefined;

	beforeAll(async () => {
		say('\n[queue] starting Redis, PostgreSQL, the emulator, n8n main, 2 workers and 2 webhook processes...');
		stack = await startQueueStack({ workers: 2, webhooks: 2, concurrency: 5, verbose, log: verbose ? say : (line) => line.startsWith('[queue]') && say(line) });
		say(`[queue] ready in ${(stack.timings.totalMs / 1000).toFixed(1)} s`);
	}, 300_000);

	afterAll(async () => {
		await stack?.stop();
	}, 120_000);

	test(
		`shared limit on: ${FREE_EXECUTIONS} × ${FREE_ITEMS} Free sends and ${BULK_EXECUTIONS} × ${BULK_RECIPIENTS} Starter bulk recipients at once → both workers, every execution succeeded, 0 × 429, every message once`,
		async () => {
			const s = stack!;
			const result = await runBatch(s, { tag: 'shared', freeCredential: SHARED_CREDENTIALS.free, bulkCredential: SHARED_CREDENTIALS.starter, bulkExecutions: BULK_EXECUTIONS });
			say(figures('shared limit ON', result, s));

			// Every execution went through the queue and was run by exactly one worker; both worked.
			expect(result.executions).toHaveLength(FREE_EXECUTIONS + BULK_EXECUTIONS);
			const ids = result.executions.map((e) => e.id);
			for (const id of ids) {
				expect(result.enqueued.has(id)).toBe(true);
				expect(result.runs.filter((r) => r.executionId === id)).toHaveLength(1);
			}
			const workersUsed = new Set(result.runs.filter((r) => ids.includes(r.executionId)).map((r) => r.worker));
			expect([...workersUsed].sort()).toEqual([1, 2]);
			// The Free executions themselves ran on both workers (else nothing was shared).
			const freeIds = result.executions.filter((e) => e.kind === 'free').map((e) => e.id);
			const freeWorkers = new Set(result.runs.filter((r) => freeIds.includes(r.executionId)).map((r) => r.worker));
			expect(freeWorkers.size).toBe(2);

			// Every execution succeeded, every item with a message ID.
			for (const execution of result.executions) {
				expect({ id: execution.id, ref: execution.ref, status: execution.status, error: execution.data?.resultData.error?.message }).toEqual({
					id: execution.id,
					ref: execution.ref,
					status: 'success',
					error: undefined,
				});
				const node = execution.kind === 'free' ? 'Send SMS' : 'Send Bulk';
				const out = execution.data?.resultData.runData[node]?.[0]?.data?.main?.[0] ?? [];
				expect(out).toHaveLength(execution.kind === 'free' ? FREE_ITEMS : BULK_RECIPIENTS);
				expect(out.filter((item) => typeof item.json.messageId !== 'string' || item.json.error !== undefined)).toEqual([]);
			}
			expect(result.executions.map((e) => e.ref).sort()).toEqual([...result.free.planned, ...result.bulk.planned].map((p) => p.ref).sort());

			// The service never had to refuse a request: the workers kept to the key's rate together,
			// counted the strictest way (at most 5 in any 1,000 ms, the first second included).
			expect((await http('GET', `${stack!.emulator.url}/__emulator/rate-limit`)).body.data).toEqual({ mode: 'sliding-window' });
			expect(result.requests.length).toBeLessThan(10_000); // the emulator keeps the last 10,000
			expect(result.rateLimited).toEqual([]);
			expect(result.free.maxPerSecond).toBeLessThanOrEqual(PLAN_LIMITS.free.requestsPerSecond);

			// Each of the 400 + 9,000 messages recorded exactly once, and nothing else.
			const free = exactlyOnce(result.free.planned, result.free.messages);
			const bulk = exactlyOnce(result.bulk.planned, result.bulk.messages);
			expect({ free, bulk }).toEqual({
				free: { expected: FREE_EXECUTIONS * FREE_ITEMS, missing: [], duplicated: [], unexpected: [] },
				bulk: { expected: BULK_EXECUTIONS * BULK_RECIPIENTS, missing: [], duplicated: [], unexpected: [] },
			});
			expect(result.messages).toHaveLength(FREE_EXECUTIONS * FREE_ITEMS + BULK_EXECUTIONS * BULK_RECIPIENTS);
		},
		360_000,
	);

	test('delivery reports: the same signed event posted at the same moment to both webhook processes starts exactly one execution, 20 times in a row', async () => {
		const s = stack!;
		const EVENTS = 20;
		// Real signed deliveries: the emulator reports 7 messages (pending, sent, final) to a receiver.
		const receiver = await startReceiver();
		try {
			// runBatch resets the emulator: the account's webhook settings are set again here.
			await s.emulator.client.patchAccount('acc_demo', { webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET });
			const ids: string[] = [];
			for (let i = 0; i < 7; i++) {
				const res = await http<{ data: { messageId: string } }>('POST', `${s.emulator.url}/api/sms/send-api`, { phoneNumber: phone('9', 9, i), message: `Report ${i}` }, { 'x-api-key': SHARED_CREDENTIALS.starter.apiKey });
				expect(res.status).toBe(202);
				ids.push(res.body.data.messageId);
			}
			const deliveries = (await receiver.waitFor((d) => ids.includes(d.messageId) && d.attempt === 1, EVENTS, 60_000)).slice(0, EVENTS);

			const webhookId = `queue-reports-${Date.now().toString(36)}`;
			const trigger: WorkflowJson = {
				name: 'Queue · Delivery reports',
				nodes: [
					{
						name: 'Delivery Report',
						type: `${NODE_TYPE}Trigger`,
						typeVersion: 1,
						position: [0, 0],
						webhookId,
						credentials: { svcMessagingApi: { id: SHARED_CREDENTIALS.free.id, name: SHARED_CREDENTIALS.free.name } },
						parameters: { events: ['message.pending', 'message.sent', 'message.delivered', 'message.failed', 'message.expired'], options: {} },
					},
					{ name: 'Report', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
				],
				connections: { 'Delivery Report': { main: [[{ node: 'Report', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			};
			const workflowId = await s.main.createWorkflow(trigger);
			await s.main.activate(workflowId);
			const path = `${webhookId}/svc-messaging`;
			for (const hook of s.webhooks) await hook.waitForWebhook(path, 60_000);

			const answers: number[] = [];
			for (const d of deliveries) {
				const post = (url: string) => http('POST', `${url}/webhook/${path}`, d.rawBody.toString('utf8'), { 'content-type': 'application/json', 'x-svc-signature': d.headers['x-svc-signature'] });
				const both = await Promise.all(s.webhooks.map((hook) => post(hook.url)));
				expect(both.map((b) => `${b.status} ${b.text}`)).toEqual([expect.stringMatching(/^200 /), expect.stringMatching(/^200 /)]);
				answers.push(both.filter((b) => (b.body as { ignored?: string })?.ignored === 'duplicate').length);
			}
			// One of the two answered "duplicate" every time.
			expect(answers).toEqual(Array(EVENTS).fill(1));
			const executions = await finishedExecutions(s, workflowId, EVENTS, 120_000);
			await new Promise((r) => setTimeout(r, 3_000)); // a 21st would show up by now
			const all = await s.main.executions(workflowId, true);
			expect(all).toHaveLength(EVENTS);
			const keys = all.map((e) => {
				const item = e.data?.resultData.runData['Delivery Report']?.[0]?.data?.main?.[0]?.[0]?.json ?? {};
				return `${item.messageId}|${item.event}`;
			});
			expect(new Set(keys).size).toBe(EVENTS);
			expect(executions.every((e) => e.status === 'success')).toBe(true);
			say(`[queue] delivery reports: ${EVENTS} events × 2 webhook processes at once → ${all.length} executions`);
			await s.main.deactivate(workflowId);
		} finally {
			await receiver.close();
		}
	}, 240_000);

	test('Send and Wait for Delivery (Delivery Report): 3 executions × 3 messages wait without a worker, are resumed through the webhook processes and finished by the workers; right outputs, each message once', async () => {
		const s = stack!;
		// Reports are signed with the account's secret; the shared credentials check it.
		await s.emulator.client.patchAccount('acc_demo', { webhookSecret: WEBHOOK_SECRET });
		const path = `queue-wait-${Date.now().toString(36)}`;
		const workflow = webhookWorkflow(`Queue · Send and Wait · ${path}`, path, {
			name: 'Send and Wait',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [440, 0],
			credentials: { svcMessagingApi: { id: SHARED_CREDENTIALS.starter.id, name: SHARED_CREDENTIALS.starter.name } },
			parameters: {
				resource: 'sms',
				operation: 'sendAndWaitForDelivery',
				phoneNumber: '={{ $json.phone }}',
				message: '={{ $json.text }}',
				senderId: { __rl: true, mode: 'id', value: 'SVCTEST' },
				waitMode: 'webhook',
				timeout: 90,
				checkBalance: false,
				options: { reference: '={{ $json.ref }}' },
			},
		});
		workflow.nodes.push(
			{ name: 'Delivered', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [700, -100], parameters: {} },
			{ name: 'Not Delivered', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [700, 100], parameters: {} },
		);
		workflow.connections['Send and Wait'] = { main: [[{ node: 'Delivered', type: 'main', index: 0 }], [{ node: 'Not Delivered', type: 'main', index: 0 }]] };
		const id = await s.main.createWorkflow(workflow);
		await s.main.activate(id);
		for (const hook of s.webhooks) await hook.waitForWebhook(path, 60_000);

		const refs = [0, 1, 2].map((e) => `queue-wait-${path}-${e}`);
		const answers = await Promise.all(
			refs.map((ref, e) =>
				http('POST', `${s.webhooks[e % s.webhooks.length].url}/webhook/${path}`, {
					items: ['1', '999', '998'].map((end, i) => ({ phone: `+2547128${e}${i}${end.padStart(3, '0')}`.slice(0, 13), text: `wait ${e}.${i}`, ref })),
				}),
			),
		);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		const executions = await finishedExecutions(s, id, 3, 150_000);
		const ids = executions.map((e) => e.id);
		const full = await Promise.all(ids.map((executionId) => s.main.execution(executionId)));
		for (const execution of full) {
			expect({ id: execution.id, status: execution.status }).toEqual({ id: execution.id, status: 'success' });
			const [delivered, notDelivered] = execution.data?.resultData.runData['Send and Wait']?.at(-1)?.data?.main ?? [];
			expect(delivered?.map((i) => i.json.status)).toEqual(['DELIVERED']);
			expect(notDelivered?.map((i) => i.json.status).sort()).toEqual(['EXPIRED', 'FAILED']);
		}
		const messages = (await s.emulator.client.messages()).filter((m) => refs.includes(m.reference));
		expect(messages).toHaveLength(9);
		expect(new Set(messages.map((m) => m.phoneNumber)).size).toBe(9);
		// The resume URLs point at the public webhook URL (the webhook processes), not at a worker.
		expect(messages.every((m) => String(m.webhookUrl).startsWith(`${s.webhooks[0].url}/webhook-waiting/`))).toBe(true);
		// Each execution ran on the workers more than once: the send, then at least one resume.
		const runs = workerRuns(s.workers);
		for (const executionId of ids) expect(runs.filter((r) => r.executionId === executionId).length).toBeGreaterThanOrEqual(2);
		say(`[queue] send and wait: ${ids.length} executions, worker runs per execution ${ids.map((e) => runs.filter((r) => r.executionId === e).length).join('/')}`);
		await s.main.deactivate(id);
	}, 240_000);

	test(
		`shared limit off (a measurement, not a requirement): ${FREE_EXECUTIONS} × ${FREE_ITEMS} Free sends at once`,
		async () => {
			const s = stack!;
			const credential = { id: CREDENTIAL_IDS.free, name: CREDENTIAL_NAMES.free };
			const result = await runBatch(s, { tag: 'local', freeCredential: credential, bulkExecutions: 0 });
			const statuses = result.executions.map((e) => e.status);
			const once = exactlyOnce(result.free.planned, result.free.messages);
			say(
				`${figures('shared limit OFF', result, s)}; statuses ${statuses.join(', ')}; ` +
					`messages missing ${once.missing.length}, duplicated ${once.duplicated.length}`,
			);
			expect(result.executions).toHaveLength(FREE_EXECUTIONS);
		},
		360_000,
	);
});
