/**
 * A real n8n (2.41.1; 1.123.81 with N8N_E2E_TARGET=1) in queue mode (main + 2 workers, Redis,
 * PostgreSQL) against the emulator: several executions on one API key at the same time, run by
 * different worker processes, keep to the plan's rate together when the credential's shared rate
 * limit is on. See ./README.md.
 */
import { PLAN_LIMITS } from '../emulator/limits';
import { CREDENTIAL_IDS, CREDENTIAL_NAMES, http, NODE_TYPE, targetInfo, WEBHOOK_SECRET, type WorkflowJson } from '../e2e/harness';
import { startReceiver } from '../trigger/harness';
import { exactlyOnce, figures, finishedExecutions, runBatch, say, workerRuns } from './batch';
import { SHARED_CREDENTIALS, startQueueStack, type QueueStack } from './queueStack';
import { BULK_EXECUTIONS, BULK_RECIPIENTS, FREE_EXECUTIONS, FREE_ITEMS, phone, webhookWorkflow } from './workflows';

const verbose = process.env.QUEUE_VERBOSE === '1';
/** QUEUE_REDIS=cluster: n8n's queue and the shared limit on a Redis Cluster of 3 masters. */
const redisCluster = process.env.QUEUE_REDIS === 'cluster';

// ---------------------------------------------------------------------------------------------

describe(`n8n ${targetInfo().version} queue mode: main + 2 workers + 2 webhook processes, ${redisCluster ? 'a Redis Cluster of 3 masters' : 'Redis'}, PostgreSQL`, () => {
	let stack: QueueStack | undefined;

	beforeAll(async () => {
		say('\n[queue] starting Redis, PostgreSQL, the emulator, n8n main, 2 workers and 2 webhook processes...');
		stack = await startQueueStack({ workers: 2, webhooks: 2, concurrency: 5, redisCluster, verbose, log: verbose ? say : (line) => line.startsWith('[queue]') && say(line) });
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
			// A failed execution shows its error (CI replica, n8n 1.123.81 beside the editor suite: one 'error', not seen since).
			const resultData = execution.data?.resultData as { error?: { message?: string; description?: string } } | undefined;
			const error = execution.status === 'success' ? undefined : `${resultData?.error?.message ?? 'no error saved'} ${resultData?.error?.description ?? ''}`.trim();
			expect({ id: execution.id, status: execution.status, error }).toEqual({ id: execution.id, status: 'success', error: undefined });
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
