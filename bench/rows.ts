/**
 * A row of the main table: one scenario run by a bench worker, its figures from the emulator's log
 * of SMS posts (every post of the row: requestTap.ts) and the worker's measurements.
 */
import { clearRequestLog, logFigures, PLANS, round, type Plan } from './lib';
import { log } from './config';
import { withSendPosts } from './requestTap';
import type { NodeScenario, WorkerResult } from './worker';
import type { BenchWorker } from './workerProcess';

export interface Row {
	id: string;
	label: string;
	/** node: the package's node; user: what a user builds without it; floor: n8n's request helper alone */
	kind: 'node' | 'user' | 'floor';
	plan: Plan;
	items: number;
	recipients: number;
	calls: number;
	expectedCalls: number | null;
	rateLimited: number;
	otherErrors: number;
	accepted: number;
	achievedRate: number | null;
	rateRatio: number | null;
	serviceBusy: number | null;
	wallS: number;
	minimumS: number;
	wallRatio: number;
	cpuMsPer10k: number;
	cpuMsPerCall: number | null;
	rssGrowthMb: number | null;
	heapGrowthMb: number | null;
	/** sampled peak of the V8 heap during the execution minus before it (memory row only) */
	peakHeapGrowthMb: number | null;
	/** recipients the service did not accept (items − accepted) */
	lost: number;
	/** HTTP calls per input recipient */
	callsPerItem: number | null;
	notes?: string;
	extra?: Record<string, unknown>;
}

/** What every row family needs: the emulator, and the fastest answer to one call of each size. */
export interface Bench {
	url: string;
	callMs: Record<number, number>;
}

export type LabelledScenario = NodeScenario & { label: string };

const nearestSize = (n: number) => (n <= 1 ? 1 : n <= 100 ? 100 : n <= 1000 ? 1000 : 10000);

/** (calls − 1) spacings at the plan's rate, plus the fastest answer to one call of the largest size. */
export function minimumMs(bench: Bench, plan: Plan, calls: number, largest: number) {
	return ((calls - 1) / PLANS[plan].rate) * 1000 + bench.callMs[nearestSize(largest)] * (largest / nearestSize(largest));
}

/** The figures every row shares, from one worker result and the emulator's SMS posts. */
export function rowFrom(
	s: { id: string; label: string; plan: Plan; kind: Row['kind'] },
	items: number,
	expectedCalls: number,
	minMs: number,
	result: WorkerResult,
	figures: ReturnType<typeof logFigures>,
): Row {
	const accepted = result.executions.reduce((sum, e) => sum + e.accepted, 0);
	return {
		id: s.id,
		label: s.label,
		kind: s.kind,
		plan: s.plan,
		items,
		recipients: items,
		calls: figures.calls,
		expectedCalls,
		rateLimited: figures.rateLimited,
		otherErrors: figures.otherErrors,
		accepted,
		achievedRate: round(figures.achievedRate),
		rateRatio: round(figures.rateRatio, 3),
		serviceBusy: round(figures.serviceBusy, 2),
		wallS: round(result.wallMs / 1000, 3)!,
		minimumS: round(minMs / 1000, 3)!,
		wallRatio: round(result.wallMs / minMs, 3)!,
		cpuMsPer10k: round((result.cpuMs / items) * 10_000, 1)!,
		cpuMsPerCall: figures.calls ? round(result.cpuMs / figures.calls, 2) : null,
		rssGrowthMb: round(result.rssPeakGrowthMb, 1),
		heapGrowthMb: round(result.heapGrowthMb, 1),
		peakHeapGrowthMb: round(result.peakHeapGrowthMb, 1),
		lost: items - accepted,
		callsPerItem: round(figures.calls / items, 4),
	};
}

const kindOf = (operation: NodeScenario['operation']): Row['kind'] =>
	operation === 'send' || operation === 'sendBulk' ? 'node' : operation === 'floor' || operation === 'floorLimited' ? 'floor' : 'user';

/** One scenario in `worker`, its SMS posts gathered while it runs. */
export async function nodeRow(bench: Bench, s: LabelledScenario, worker: BenchWorker): Promise<Row> {
	await clearRequestLog(bench.url);
	log(`bench: ${s.id} (${s.label}, ${s.plan}, ${s.items} items)`);
	const plan = PLANS[s.plan];
	const bulk = s.operation === 'sendBulk' || s.operation === 'bulkChunks';
	const expectedCalls = bulk ? Math.ceil(s.items / plan.perCall) : s.items;
	const { result, posts } = await withSendPosts(bench.url, s.key, expectedCalls, async () => await worker.run(s, bench.url));
	const figures = logFigures(posts, plan.rate);
	const minMs = minimumMs(bench, s.plan, expectedCalls, bulk ? Math.min(s.items, plan.perCall) : 1);
	const errors = result.executions.filter((e) => e.error).map((e) => e.error);
	const row = rowFrom({ ...s, kind: kindOf(s.operation) }, s.items, expectedCalls, minMs, result, figures);
	row.notes = errors.length ? `errors: ${errors.join('; ')}` : undefined;
	row.extra = {
		cpuMs: round(result.cpuMs, 1),
		rssBeforeMb: round(result.rssBeforeMb, 1),
		...(result.liveHeapGrowthMb === null
			? {}
			: {
					liveHeapGrowthMb: round(result.liveHeapGrowthMb, 1),
					liveHeapKbPerItem: round((result.liveHeapGrowthMb * 1024) / s.items, 2),
					liveHeapSamples: result.liveHeapSamples,
					// left out of cpuMs: the sampler's, not the node's
					liveHeapGcCpuMs: round(result.liveHeapGcCpuMs, 1),
				}),
		heapBeforeMb: round(result.heapBeforeMb, 1),
		// The send ledger's record in n8n's database (its processed-data store): calls and their CPU.
		durableCalls: result.durable.calls,
		durableUsPerItem: round((result.durable.busyMs * 1000) / s.items, 1),
		durableRowsMb: round(result.durable.rowsMb, 2),
		// Where the time beyond the minimum goes: before the first call arrived, after the last one.
		firstCallAfterMs: figures.firstArrival === null ? null : figures.firstArrival - result.startedAt,
		doneAfterLastCallMs: figures.lastArrival === null ? null : result.endedAt - figures.lastArrival,
	};
	return row;
}
