/**
 * Runs the package's node in-process through n8n-core's real ExecuteContext (test/helpers/n8n.ts),
 * one scenario at a time as the orchestrator asks, and measures around each execution: wall time,
 * this process's CPU time (the emulator is another process) and RSS.
 */
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// As test/helpers/jest.setup.ts: n8n-core reads these when it loads.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-bench-'));
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'true';
process.env.N8N_LOG_LEVEL = 'silent';

import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { mb, peakRss, resetPeakRss, sampleHeapPeak, sampleLiveHeap } from './heapSamplers';
import { inputItems, MESSAGE, PLANS, TEMPLATE, type Plan } from './lib';
import { BENCH_NODE_NAME, BenchUserBuild, type UserBuild } from './userBuilds';
import type { RateReading } from '../nodes/SvcMessaging/transport/rateReading';

export interface NodeScenario {
	id: string;
	/** the package's Send or Send Bulk, or a model of what a user builds without it (userBuilds.ts) */
	operation: 'send' | 'sendBulk' | UserBuild;
	plan: Plan;
	key: string;
	items: number;
	/** `{{name}}`/`{{order}}` placeholders filled from every item's fields */
	variables?: boolean;
	/** concurrent executions on the same key (the shared limiter) */
	executions?: number;
	/** first input item's index (distinct phone numbers per process on one key) */
	offset?: number;
	/** added to the execution's reference (tells processes on one key apart) */
	tag?: string;
	/** the credential's "Use Redis" (sharedRateLimit), on this Redis */
	sharedLimit?: SharedLimitSettings;
	/** the credential's How the Service Counts the Rate; default 'strict' (see credentialsFor) */
	reading?: RateReading;
	/** sample the V8 heap during the execution (its peak); costs CPU, so the memory row only */
	sampleHeap?: boolean;
	/**
	 * Every this many ms while the execution runs: a full GC, then the heap left (the live heap),
	 * so that V8's lazy collection does not blur what the send holds; the highest is reported.
	 */
	liveHeapEveryMs?: number;
	/**
	 * SMS Send with every send policy on: Sending Hours (open all day, so every message is judged
	 * and none deferred), Sender ID Automatic, Max Credits far above the send, a do-not-send list of
	 * 1,000 numbers none of the recipients has.
	 */
	policies?: boolean;
}

export interface SharedLimitSettings {
	host: string;
	port: number;
	database: number;
	prefix: string;
	/** "Redis Cluster Nodes": host and port are then not used */
	clusterNodes?: string;
}

export interface ExecutionFigures {
	reference: string;
	wallMs: number;
	outputItems: number;
	accepted: number;
	rejected: number;
	error?: string;
}

export interface WorkerResult {
	id: string;
	wallMs: number;
	/** Date.now() when the execution(s) started and ended (the emulator logs the same clock) */
	startedAt: number;
	endedAt: number;
	cpuMs: number;
	rssBeforeMb: number;
	/** V8 heap in use just before the execution (after a full GC): the capped row's baseline */
	heapBeforeMb: number;
	rssPeakGrowthMb: number;
	heapGrowthMb: number;
	/** highest live heap (after a full GC) sampled while the execution ran, minus before it; null unless liveHeapEveryMs */
	liveHeapGrowthMb: number | null;
	/** live heap samples taken */
	liveHeapSamples: number;
	/** CPU of the sampler's full GCs (already left out of cpuMs) */
	liveHeapGcCpuMs: number;
	/** n8n's processed-data store as the send ledger used it (test/helpers/processedData.ts) */
	durable: { calls: number; busyMs: number; rowsMb: number };
	/** highest V8 heap in use while the execution ran (sampled) minus before it; null unless sampleHeap */
	peakHeapGrowthMb: number | null;
	executions: ExecutionFigures[];
}

/**
 * `run` with `barrier`: the worker prepares the execution, answers `armed` and starts it at the
 * `startAt` (Date.now() clock) of the `go` that follows, so that several worker processes start
 * together.
 */
export type ToWorker =
	| { type: 'run'; scenario: NodeScenario; url: string; barrier?: boolean }
	| { type: 'baseline'; scenario: NodeScenario }
	| { type: 'go'; startAt: number }
	| { type: 'exit' };

export type FromWorker =
	| { type: 'ready' }
	| { type: 'armed' }
	| { type: 'result'; result: WorkerResult }
	| { type: 'baseline'; heapMb: number }
	| { type: 'error'; message: string };

/**
 * The API-key credential as a user fills it in: plan and key, plus, for a shared limit, the Redis
 * fields of "Use Redis" (sharedRateLimit) (credentials/SvcMessagingApi.credentials.ts).
 */
export function credentialsFor(scenario: NodeScenario, url: string): { svcMessagingApi: ICredentialDataDecryptedObject } {
	// The bench's service counts strictly (a sliding window), so its keys are known strict, as a key
	// that learned it is; the reading rows (processRows.ts) start from Learn.
	const api: ICredentialDataDecryptedObject = { baseUrl: url, apiKey: scenario.key, plan: scenario.plan, rateLimitReading: scenario.reading ?? 'strict' };
	if (scenario.sharedLimit) {
		Object.assign(api, {
			sharedRateLimit: true,
			redisHost: scenario.sharedLimit.host,
			redisPort: scenario.sharedLimit.port,
			redisUser: '',
			redisPassword: '',
			redisDatabase: scenario.sharedLimit.database,
			redisTls: false,
			redisPrefix: scenario.sharedLimit.prefix,
			redisClusterNodes: scenario.sharedLimit.clusterNodes ?? '',
		});
	}
	return { svcMessagingApi: api };
}

let go: ((startAt: number) => void) | undefined;

const USER_BUILDS: readonly string[] = ['floor', 'floorLimited', 'loopWait', 'batching', 'bulkChunks'];
const isUserBuild = (operation: NodeScenario['operation']): operation is UserBuild => USER_BUILDS.includes(operation);

function parameters(scenario: NodeScenario, reference: string, url: string): IDataObject {
	if (isUserBuild(scenario.operation)) {
		const plan = PLANS[scenario.plan];
		return { build: scenario.operation, url, apiKey: scenario.key, rate: plan.rate, perCall: plan.perCall, message: MESSAGE };
	}
	const senderId = { __rl: true, mode: 'list', value: '' };
	if (scenario.operation === 'send') {
		if (scenario.policies) {
			// An Idempotency Key per item (one business event each): every message claims its own key.
			const options = {
				reference,
				maxCredits: 100 * scenario.items,
				sendingHours: { hours: { from: '00:00', until: '23:59', outside: 'schedule' } },
				idempotencyKey: `={{ 'order-${reference}-' + $json.phone }}`,
			};
			// 1,000 numbers none of the recipients has: every message is still sent, each checked against the list.
			const doNotSend = { list: { numbers: Array.from({ length: 1_000 }, (_, k) => `+2547${90_000_000 + k}`).join('\n') } };
			return { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: MESSAGE, senderId: { ...senderId, value: 'auto' }, options, doNotSend };
		}
		return { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: MESSAGE, senderId, options: { reference } };
	}
	return {
		resource: 'sms',
		operation: 'sendBulk',
		recipientsSource: 'items',
		phoneNumber: '={{ $json.phone }}',
		variablesSource: scenario.variables ? 'allFields' : 'none',
		message: scenario.variables ? TEMPLATE : MESSAGE,
		senderId,
		options: { reference },
	};
}

async function run(scenario: NodeScenario, url: string, barrier = false): Promise<WorkerResult> {
	const { executeNode, registerNodeType } = await import('../test/helpers/n8n');
	const { processedData } = await import('../test/helpers/processedData');
	registerNodeType(BENCH_NODE_NAME, new BenchUserBuild());
	const executions = scenario.executions ?? 1;
	const offset = scenario.offset ?? 0;
	const inputs = Array.from({ length: executions }, (_, e) => inputItems(scenario.items, offset + e * scenario.items));
	const credentials = credentialsFor(scenario, url);

	global.gc?.();
	processedData.takeStats();
	const heapBefore = process.memoryUsage().heapUsed;
	const resettable = resetPeakRss();
	const rssBefore = process.memoryUsage.rss();

	if (barrier) {
		const startAt = await new Promise<number>((resolve) => {
			go = resolve;
			process.send!({ type: 'armed' } satisfies FromWorker);
		});
		go = undefined;
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
	}

	const heapPeak = scenario.sampleHeap ? sampleHeapPeak() : undefined;
	const liveHeap = scenario.liveHeapEveryMs ? sampleLiveHeap(scenario.liveHeapEveryMs) : undefined;
	const cpu = process.cpuUsage();
	const startedAt = Date.now();
	const started = performance.now();
	const figures = await Promise.all(
		inputs.map(async (items, e): Promise<ExecutionFigures> => {
			const reference = `${scenario.id}-${scenario.tag ?? ''}${String.fromCharCode(65 + e)}`;
			const t0 = performance.now();
			try {
				const type = isUserBuild(scenario.operation) ? `n8n-nodes-svc-messaging.${BENCH_NODE_NAME}` : undefined;
				const setup = { type, parameters: parameters(scenario, reference, url), credentials: type ? {} : credentials };
				const [output] = (await executeNode(setup, items)) as INodeExecutionData[][];
				const accepted = output.filter((o) => o.json.accepted === true).length;
				return { reference, wallMs: performance.now() - t0, outputItems: output.length, accepted, rejected: output.length - accepted };
			} catch (error) {
				return { reference, wallMs: performance.now() - t0, outputItems: 0, accepted: 0, rejected: 0, error: (error as Error).message };
			}
		}),
	);
	const wallMs = performance.now() - started;
	const endedAt = Date.now();
	const used = process.cpuUsage(cpu);
	const rssPeak = Math.max(peakRss(resettable), process.memoryUsage.rss());
	// The heap when the execution ended (output items included), and its sampled peak.
	const heapAfter = process.memoryUsage().heapUsed;
	const heapPeakBytes = heapPeak?.stop();
	const live = liveHeap?.stop();

	return {
		id: scenario.id,
		wallMs,
		startedAt,
		endedAt,
		cpuMs: (used.user + used.system) / 1000 - (live?.gcCpuMs ?? 0),
		rssBeforeMb: mb(rssBefore),
		heapBeforeMb: mb(heapBefore),
		rssPeakGrowthMb: mb(rssPeak - rssBefore),
		heapGrowthMb: mb(heapAfter - heapBefore),
		liveHeapGrowthMb: live && live.samples ? mb(live.peak - heapBefore) : null,
		liveHeapSamples: live?.samples ?? 0,
		liveHeapGcCpuMs: live?.gcCpuMs ?? 0,
		durable: processedData.takeStats(),
		peakHeapGrowthMb: heapPeakBytes === undefined ? null : mb(Math.max(heapPeakBytes, heapAfter) - heapBefore),
		executions: figures,
	};
}

process.on('message', (message: ToWorker) => {
	if (message.type === 'go') {
		go?.(message.startAt);
		return;
	}
	if (message.type === 'baseline') {
		// The heap a run of this scenario starts from (its input items built, after a GC), sends nothing.
		const inputs = inputItems(message.scenario.items, message.scenario.offset ?? 0);
		global.gc?.();
		process.send!({ type: 'baseline', heapMb: mb(process.memoryUsage().heapUsed) } satisfies FromWorker);
		void inputs.length;
		return;
	}
	if (message.type === 'exit') {
		void (async () => {
			const { shutdownN8nCore } = await import('../test/helpers/n8n');
			const { closeSharedLimiters } = await import('../nodes/SvcMessaging/transport/limiter');
			const { closeRedisClients } = await import('../nodes/SvcMessaging/transport/redis');
			await closeSharedLimiters();
			await closeRedisClients();
			await shutdownN8nCore();
			process.exit(0);
		})();
		return;
	}
	run(message.scenario, message.url, message.barrier).then(
		(result) => process.send!({ type: 'result', result } satisfies FromWorker),
		(error: Error) => process.send!({ type: 'error', message: error.stack ?? error.message } satisfies FromWorker),
	);
});

void import('../test/helpers/n8n').then(() => process.send!({ type: 'ready' } satisfies FromWorker));
