/**
 * The rate rows: N worker processes (1, 2, 4) started together on one fresh Free or Starter key, the
 * limit shared through Redis, against the sliding window (4 at Starter also through a Redis Cluster
 * of 3 masters); and, as a control, 2 processes at Free each with its own limiter. Each row has its
 * own key (a fresh window), its own account (its messages tell the processes apart by reference)
 * and its own slots in Redis. The distance rows do the same with
 * the emulator's latency profile on (a delay each way, jittered), the rate counted at arrival. The
 * reading rows put one process 250 ± 50 ms from a service that counts in each of the emulator's ways
 * (a token bucket, each calendar second, any 1,000 ms): what the limiter reaches, and the 429s each drew.
 */
import type { RateLimitMode } from '../test/emulator/rateLimit';
import type { RateReading } from '../nodes/SvcMessaging/transport/rateReading';
import { startRedisCluster } from '../test/helpers/redisCluster';
import { startRedis } from '../test/helpers/services';
import { call, clearRequestLog, logFigures, median, messages, PLANS, requestLog, round, seedAccount, type Plan } from './lib';
import { keyFor, log, SIZES, want } from './config';
import { DEAD_WORKER_ID, deadWorkerRow, type DeadWorkerRow } from './deadWorkerRow';
import type { NodeScenario } from './worker';
import { BenchWorker } from './workerProcess';

/** One "N processes on one key" row: N worker processes, each one Send execution, started together. */
export interface ProcessesRow {
	id: string;
	label: string;
	/** the emulator's delay each way ("ms±jitter"), null for none */
	latency: string | null;
	/** how the emulator counted the plan's rate in this row */
	service: RateLimitMode;
	/** the credential's reading of the rate (Learn in the reading rows, Strict elsewhere) */
	reading: RateReading;
	/** the 429s this row may draw: 0, or 2 at Learn (the issue's bound a send) */
	allowed429: number;
	/** the rate this row must reach (share of the plan) */
	target: number;
	processes: number;
	sharedLimiter: boolean;
	plan: Plan;
	rate: number;
	itemsPerProcess: number;
	items: number;
	requests: number;
	accepted: number;
	rateLimited: number;
	otherErrors: number;
	requestsPerAccepted: number | null;
	lost: number;
	achievedRate: number | null;
	rateRatio: number | null;
	/** from the first process's start to the last one's end */
	wallS: number;
	/** items / plan rate: the (items − 1) spacings plus one call */
	minimumS: number;
	/** between the earliest and the latest start of the processes' executions */
	startSpreadMs: number;
	/** between consecutive arrivals at the emulator: accepted requests, and all requests */
	minGapMs: { accepted: number | null; all: number | null };
	medianGapMs: { accepted: number | null; all: number | null };
	/** accepted gaps shorter than 90 % of the plan's spacing (1000 / rate ms) */
	acceptedGapsUnder90Pct: number;
	/** accepted requests in the busiest 1,000 ms (the sliding window's count), and in the first 1,000 ms */
	mostInAnySecond: number;
	inFirstSecond: number;
	perProcess: Array<{
		pid: number | undefined;
		reference: string;
		/** messages the service created with this process's reference */
		accepted: number;
		/** accepted requests of this process while every process still had some to make */
		shareWhileAllRan: number | null;
		startedAfterMs: number;
		finishedAfterS: number;
		error?: string;
	}>;
}

interface ProcessPlan {
	id: string;
	plan: Plan;
	n: number;
	shared: boolean;
	/** shared through a Redis Cluster of 3 masters ("Redis Cluster Nodes") instead of one Redis */
	cluster?: boolean;
	latency?: string;
	target?: number;
	/** how the service counts (default: the bench's sliding window) */
	service?: RateLimitMode;
	/** the credential's reading (default strict) */
	reading?: RateReading;
	/** fixed-second: its seconds begin this many ms past the whole second */
	secondOffsetMs?: number;
}

/** Round trips 50, 250 and 500 ms (± 10 %, uniform each way), and the rate each must reach. */
const DISTANCES = [
	{ rtt: 50, each: '25±5', target: 0.95 },
	{ rtt: 250, each: '125±25', target: 0.95 },
	{ rtt: 500, each: '250±25', target: 0.9 },
];

/** The ways a service may count "N requests per second" (the emulator's modes; the bench's own is the sliding window). */
const SERVICE_READINGS: RateLimitMode[] = ['token-bucket', 'fixed-second', 'sliding-window'];

const processPlans = ([
	...(['free', 'starter'] as const).flatMap((plan) => SIZES.rate.counts.map((n) => ({ id: `rate-${plan}-${n}-shared`, plan, n, shared: true }))),
	{ id: 'rate-free-2-local', plan: 'free', n: 2, shared: false },
	{ id: 'rate-starter-4-cluster', plan: 'starter', n: 4, shared: true, cluster: true },
	{ id: 'rate-business-4-shared', plan: 'business', n: 4, shared: true, target: 0.98 },
	{ id: 'distance-business-250-4-shared', plan: 'business', n: 4, shared: true, latency: '125', target: 0.98 },
	{ id: 'distance-business-250j-4-shared', plan: 'business', n: 4, shared: true, latency: '125±25', target: 0.95 },
	// Learn (the credential's default) against each way of counting: the plan's rate where the service
	// allows it; against the strict one, its first send (the 429s that teach it, and its pause).
	...(['starter', 'business'] as const).flatMap((plan) =>
		SERVICE_READINGS.map((service) => ({
			id: `reading-${plan}-${service}`,
			plan,
			n: 1,
			shared: false,
			latency: '125±25',
			service,
			reading: 'learn' as const,
			target: service === 'sliding-window' ? 0.85 : 0.98,
		})),
	),
	// A per-second service whose seconds begin off this machine's whole second (its own clock).
	...[150, 480, 850].map((secondOffsetMs) => ({
		id: `reading-business-fixed-second-${secondOffsetMs}`,
		plan: 'business',
		n: 1,
		shared: false,
		latency: '125±25',
		service: 'fixed-second' as const,
		secondOffsetMs,
		reading: 'learn' as const,
		target: 0.95,
	})),
	...DISTANCES.flatMap((d) => [
		{ id: `distance-starter-${d.rtt}-1-local`, plan: 'starter', n: 1, shared: false, latency: d.each, target: d.target },
		{ id: `distance-starter-${d.rtt}-4-shared`, plan: 'starter', n: 4, shared: true, latency: d.each, target: d.target },
	]),
] as ProcessPlan[]).filter((p) => want(p.id) && (!SIZES.rate.quickOnly || SIZES.rate.quickOnly.includes(p.id) || p.id.startsWith('rate-free') || p.id.startsWith('rate-starter')));

/** Sets how the emulator counts the plan's rate. */
async function setService(url: string, mode: RateLimitMode, secondOffsetMs = 0): Promise<void> {
	const { status } = await call(url, 'PUT', '/__emulator/rate-limit', { mode, secondOffsetMs });
	if (status !== 200) throw new Error(`setting the emulator's rate limit to ${mode} failed: ${status}`);
}

/** Sets the emulator's delay each way ("ms±jitter"; '0' for none). */
export async function setLatency(url: string, each: string): Promise<void> {
	const { status } = await call(url, 'PUT', '/__emulator/latency', { inbound: each, outbound: each });
	if (status !== 200) throw new Error(`setting the emulator's latency to ${each} failed: ${status}`);
}

/** Every wanted rate row, with a redis-server and a pool of warmed worker processes of its own. */
export async function processesRows(url: string, oneCallMs: number): Promise<{ rows: ProcessesRow[]; deadWorker?: DeadWorkerRow }> {
	const deadWorkerWanted = want(DEAD_WORKER_ID) && !SIZES.rate.quickOnly;
	if (!processPlans.length && !deadWorkerWanted) return { rows: [] };
	log('bench: starting redis-server (test/helpers/services.ts)');
	const redis = await startRedis();
	const cluster = processPlans.some((p) => p.cluster) ? await startRedisCluster() : undefined;
	const pool = Array.from({ length: Math.max(deadWorkerWanted ? 3 : 1, ...processPlans.map((p) => p.n)) }, () => new BenchWorker());
	try {
		const sharedLimit = { host: redis.host, port: redis.port, database: 0, prefix: 'svc-messaging' };
		const onCluster = cluster && { ...sharedLimit, clusterNodes: cluster.nodesText };
		// Warm-ups in every process: one Send without and one with the shared limit, own Business keys.
		const warmKeys = pool.map((_, i) => ({ local: keyFor(`warmup-process-${i}`), shared: keyFor(`warmup-process-${i}-shared`) }));
		await seedAccount(url, warmKeys.flatMap((k) => [k.local, k.shared]).map((key) => ({ key, plan: 'business' as Plan })));
		await Promise.all(
			pool.map(async (w, i) => {
				const warm: NodeScenario = { id: 'warmup-process', operation: 'send', plan: 'business', items: 20, key: warmKeys[i].local, offset: 30_000_000 + i * 100 };
				await w.run(warm, url);
				await w.run({ ...warm, key: warmKeys[i].shared, offset: warm.offset! + 50, sharedLimit }, url);
			}),
		);
		const rows: ProcessesRow[] = [];
		let offsetBase = 40_000_000;
		for (const p of processPlans) {
			const distance = `${p.latency ? `, the service ${p.latency} ms away each way` : ''}${p.service ? `, counting ${p.service}${p.secondOffsetMs ? ` (seconds ${p.secondOffsetMs} ms off)` : ''}` : ''}`;
			const through = p.cluster ? 'Redis Cluster, 3 masters' : 'Redis';
			const label = `${p.n} process${p.n > 1 ? 'es' : ''} on one fresh ${p.plan} key, Send, limiter ${p.shared ? `shared (${through})` : 'per process'}${distance}`;
			const perProcess = Math.ceil(SIZES.rate.items[p.plan] / p.n);
			if (p.latency) await setLatency(url, p.latency);
			if (p.service) await setService(url, p.service, p.secondOffsetMs);
			try {
				const limit = p.shared ? (p.cluster && onCluster) || sharedLimit : undefined;
				const reading = p.reading ?? 'strict';
				const row = await processesRow(url, p.id, label, pool.slice(0, p.n), limit, (offsetBase += 10_000), oneCallMs, p.plan, perProcess, reading);
				const service = p.service ?? 'sliding-window';
				// Learn: at most 2 × 429 a send (against a strict service: the ones that teach it the strict reading).
				const allowed429 = reading === 'learn' ? 2 : 0;
				rows.push({ ...row, latency: p.latency ?? null, service, reading, allowed429, target: p.target ?? 0.95 });
			} finally {
				if (p.latency) await setLatency(url, '0');
				if (p.service) await setService(url, 'sliding-window');
			}
		}
		// Last: it kills one of the pool's processes.
		const deadWorker = deadWorkerWanted ? await deadWorkerRow(url, pool.slice(0, 3), sharedLimit, (offsetBase += 10_000), SIZES.rate.deadWorkerItems) : undefined;
		return { rows, deadWorker };
	} finally {
		await Promise.all(pool.map(async (w) => await w.stop()));
		await redis.stop();
		await cluster?.stop();
	}
}

/**
 * One "N processes on one key" row: a fresh key of `planName` on its own account, the processes
 * armed (inputs built, GC done) and started at one Date.now() moment, then the emulator's log and
 * messages read.
 */
export async function processesRow(
	url: string,
	id: string,
	label: string,
	workers: BenchWorker[],
	sharedLimit: NodeScenario['sharedLimit'],
	offset: number,
	oneCallMs: number,
	planName: Plan,
	perProcess: number,
	reading: RateReading = 'strict',
): Promise<Omit<ProcessesRow, 'latency' | 'target' | 'service' | 'reading' | 'allowed429'>> {
	const plan = PLANS[planName];
	const key = keyFor(id);
	const accountId = await seedAccount(url, [{ key, plan: planName }]);
	await clearRequestLog(url);
	log(`bench: ${id} (${label}, ${workers.length} × ${perProcess} items)`);
	const scenarios: NodeScenario[] = workers.map((_, i) => ({
		id,
		operation: 'send',
		plan: planName,
		items: perProcess,
		key,
		offset: offset + i * perProcess,
		tag: `P${i + 1}-`,
		sharedLimit,
		reading,
	}));
	const armed = await Promise.all(workers.map(async (w, i) => await w.arm(scenarios[i], url)));
	// Every process is waiting at the barrier: all start at the same Date.now() moment.
	const startAt = Date.now() + 250;
	const results = await Promise.all(armed.map(async (a) => await a.start(startAt)));

	const requests = await requestLog(url, key);
	const figures = logFigures(requests, plan.rate);
	const created = await messages(url, accountId);
	const accepted = created.length;
	const items = perProcess * workers.length;
	const times = results.map((r) => created.filter((m) => m.reference === r.executions[0].reference).map((m) => Date.parse(m.createdAt)));
	// While every process still had requests to make: from the first acceptance until the first
	// process's last one.
	const withAny = times.filter((t) => t.length);
	const overlapStart = Math.min(...withAny.map((t) => Math.min(...t)));
	const overlapEnd = Math.min(...withAny.map((t) => Math.max(...t)));
	const inside = times.map((t) => t.filter((x) => x >= overlapStart && x <= overlapEnd).length);
	const insideTotal = inside.reduce((a, b) => a + b, 0);
	const firstStart = Math.min(...results.map((r) => r.startedAt));
	const lastEnd = Math.max(...results.map((r) => r.endedAt));
	const gaps = (list: number[]) => {
		const sorted = [...list].sort((a, b) => a - b);
		return sorted.slice(1).map((t, i) => t - sorted[i]);
	};
	const acceptedGaps = gaps(requests.filter((r) => r.status !== null && r.status < 400).map((r) => Date.parse(r.time)));
	const allGaps = gaps(requests.map((r) => Date.parse(r.time)));
	const spacing = 1000 / plan.rate;
	if (accepted !== figures.okCalls) log(`bench: ${id}: ${accepted} messages but ${figures.okCalls} accepted requests`);
	return {
		id,
		label,
		processes: workers.length,
		sharedLimiter: !!sharedLimit,
		plan: planName,
		rate: plan.rate,
		itemsPerProcess: perProcess,
		items,
		requests: figures.calls,
		accepted,
		rateLimited: figures.rateLimited,
		otherErrors: figures.otherErrors,
		requestsPerAccepted: accepted ? round(figures.calls / accepted, 2) : null,
		lost: items - accepted,
		achievedRate: round(figures.achievedRate),
		rateRatio: round(figures.rateRatio, 3),
		wallS: round((lastEnd - firstStart) / 1000, 2)!,
		minimumS: round(((items - 1) / plan.rate) * 1000 + oneCallMs, 0)! / 1000,
		startSpreadMs: Math.max(...results.map((r) => r.startedAt)) - firstStart,
		minGapMs: { accepted: acceptedGaps.length ? Math.min(...acceptedGaps) : null, all: allGaps.length ? Math.min(...allGaps) : null },
		medianGapMs: { accepted: median(acceptedGaps), all: median(allGaps) },
		acceptedGapsUnder90Pct: acceptedGaps.filter((g) => g < spacing * 0.9).length,
		mostInAnySecond: figures.mostInAnySecond,
		inFirstSecond: figures.inFirstSecond,
		perProcess: results.map((r, i) => ({
			pid: workers[i].pid,
			reference: r.executions[0].reference,
			accepted: times[i].length,
			shareWhileAllRan: insideTotal ? round(inside[i] / insideTotal, 3) : null,
			startedAfterMs: r.startedAt - firstStart,
			finishedAfterS: round((r.endedAt - firstStart) / 1000, 2)!,
			error: r.executions[0].error,
		})),
	};
}
