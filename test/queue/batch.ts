/**
 * One batch of the queue suite: executions started at once on the main process, waited for, and
 * read back (executions, worker logs, the emulator's request log and messages), with its figures.
 */
import { PLAN_LIMITS } from '../emulator/limits';
import { FINAL, http, waitFor, type Execution, type N8n, type WorkflowJson } from '../e2e/harness';
import type { QueueStack } from './queueStack';
import { FREE_EXECUTIONS, FREE_ITEMS, BULK_RECIPIENTS, plan, smsSendBulkWorkflow, smsSendWorkflow, type Credential, type Planned } from './workflows';

export const say = (line: string) => process.stdout.write(`${line}\n`);

export async function createActive(n8n: N8n, workflow: WorkflowJson): Promise<{ id: string; path: string }> {
	const path = workflow.nodes[0].parameters.path as string;
	const id = await n8n.createWorkflow(workflow);
	await n8n.activate(id);
	await n8n.waitForWebhook(path);
	return { id, path };
}

/** Log lines that tell where an execution stopped, and the start-up warnings of an offline machine. */
const TELLING = /"level":"(error|warn)"|[Ee]nqueued|started execution|[Jj]ob /;
const NOISE = /unknown webhook|not registered for GET|deprecations|npm registry request|Strapi|status code 403|Postgres 1\d is not|Python task runner/;

/** The workflow's executions as n8n's database has them (the editor's list: every status, new and running too, which the public API leaves out). */
async function storedExecutions(main: N8n, workflowId: string): Promise<Execution[]> {
	const stored = await main.rest<{ data: { results: Execution[] } }>('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`);
	return stored.data.results;
}

/**
 * Waits for `count` finished executions of the workflow. The public API lists an execution once the
 * main process no longer counts it as active; a CI run saw main keep counting one that had finished
 * (success in the database, "Execution 1 (job 1) finished" in main's log) for the whole 2 minutes, so
 * when the database has them all finished, each is read back through the public API instead. On
 * time-out the error tells what n8n said.
 */
export async function finishedExecutions(stack: QueueStack, workflowId: string, count: number, timeoutMs: number): Promise<Execution[]> {
	const { main } = stack;
	try {
		return await waitFor(
			`${count} finished execution(s) of workflow ${workflowId}`,
			async () => {
				const list = await main.executions(workflowId, false);
				const done = list.filter((e) => FINAL.has(e.status));
				if (done.length >= count) return done;
				const stored = (await storedExecutions(main, workflowId).catch(() => [])).filter((e) => FINAL.has(e.status));
				if (stored.length < count) return undefined;
				const read = await Promise.all(stored.map(async ({ id }) => await main.execution(String(id)).catch(() => undefined)));
				return read.every((e) => e && FINAL.has(e.status)) ? (read as Execution[]) : undefined;
			},
			timeoutMs,
			1_000,
		);
	} catch (error) {
		const listed = await main.executions(workflowId, false).catch(() => []);
		const running = await main.api<{ data: Execution[] }>('GET', `/executions?workflowId=${workflowId}&status=running`).catch(() => ({ data: [] }));
		const stored = await storedExecutions(main, workflowId)
			.then((executions) => executions.map((e) => `${e.id}:${e.status}`).join(', ') || 'none')
			.catch((e: Error) => `unread (${e.message.slice(0, 100)})`);
		const errors = [main, ...stack.workers].map((n8n, i) => {
			const lines = n8n
				.logLines()
				.filter((l) => TELLING.test(l) && !NOISE.test(l));
			return `${i === 0 ? 'main' : `worker ${i}`}: ${lines.slice(-10).map((l) => l.slice(0, 300)).join('\n  ') || '(no errors logged)'}`;
		});
		throw new Error(
			`${(error as Error).message}\nlisted: ${listed.map((e) => `${e.id}:${e.status}`).join(', ') || 'none'}; ` +
				`running: ${running.data.map((e) => e.id).join(', ') || 'none'}; in the database: ${stored}\n${errors.join('\n')}`,
		);
	}
}

export interface WorkerRun {
	worker: number;
	executionId: string;
	jobId: string;
}

/** The executions each worker says it ran: its "Worker started execution <id> (job <n>)" log line. */
export function workerRuns(workers: N8n[]): WorkerRun[] {
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
export function enqueuedByMain(main: N8n): Set<string> {
	const ids = new Set<string>();
	for (const line of main.logLines()) {
		const match = /Enqueued execution (\d+) \(job (\d+)\)/.exec(line);
		if (match) ids.add(match[1]);
	}
	return ids;
}

export interface RequestRecord {
	method: string;
	path: string;
	status: number | null;
	errorCode: string | null;
	time: string;
}

export interface MessageRecord {
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

export interface BatchResult {
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
export async function runBatch(
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
export function exactlyOnce(planned: Planned[], messages: MessageRecord[]) {
	const count = new Map<string, number>();
	for (const m of messages) count.set(`${m.reference}|${m.phoneNumber}`, (count.get(`${m.reference}|${m.phoneNumber}`) ?? 0) + 1);
	const expected = new Set(planned.flatMap((p) => p.phones.map((ph) => `${p.ref}|${ph}`)));
	const missing = [...expected].filter((k) => !count.has(k));
	const duplicated = [...count].filter(([k, n]) => expected.has(k) && n > 1).map(([k, n]) => `${k} ×${n}`);
	const unexpected = [...count.keys()].filter((k) => !expected.has(k));
	return { expected: expected.size, missing, duplicated, unexpected };
}

export function figures(label: string, result: BatchResult, stack: QueueStack): string {
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
