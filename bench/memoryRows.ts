/**
 * The memory rows, each in a fresh worker process (its heap and RSS high-water mark are the row's):
 * Send Bulk of 100,000 recipients at Business uncapped and with its heap capped, and SMS Send of
 * 20,000 and 50,000 items at Business, the largest capped. Every row samples the live heap (a full
 * GC, then the heap left) while the send runs.
 */
import type { Plan } from './lib';
import { keyFor, log, MEMORY_TARGET_MB, SEND_CAP_MB, SIZES, want } from './config';
import { nodeRow, type Bench, type LabelledScenario, type Row } from './rows';
import { BenchWorker } from './workerProcess';

export const bulkMemoryScenario: LabelledScenario = {
	id: 'memory-business',
	label: 'Send Bulk, {{placeholders}} (memory)',
	operation: 'sendBulk',
	plan: 'business',
	items: SIZES.memory,
	variables: true,
	sampleHeap: true,
	liveHeapEveryMs: SIZES.bulkLiveHeapEveryMs,
	key: keyFor('memory-business'),
};

/**
 * The same send in a process whose V8 old generation may grow by only MEMORY_TARGET_MB: what it needs.
 * Without the live-heap sampler: its full GC every 250 ms keeps V8's mutator utilization under 0.4, and
 * V8 aborts a process that spends so much in mark-compacts once its old generation passes 80 % of the
 * limit ("Ineffective mark-compacts near heap limit", here with 132.8 of 164 MB after the GC): the row
 * then judged the sampler, at a cap of 0.8 × the limit, not the send.
 */
export const bulkCappedScenario: LabelledScenario = {
	...bulkMemoryScenario,
	id: 'memory-business-capped',
	label: `Send Bulk, memory (heap capped +${MEMORY_TARGET_MB} MB)`,
	liveHeapEveryMs: undefined,
	key: keyFor('memory-business-capped'),
};

/** SMS Send at Business, each size in a fresh process; the largest capped at its baseline + SEND_CAP_MB. */
export const sendMemoryScenarios = SIZES.sendMemory.map((items, n) => ({
	id: `memory-send-${items}`,
	label: `SMS Send, live heap${n === SIZES.sendMemory.length - 1 ? ` (heap capped: baseline + ${SEND_CAP_MB} MB)` : ''}`,
	operation: 'send' as const,
	plan: 'business' as Plan,
	items,
	liveHeapEveryMs: SIZES.liveHeapEveryMs,
	offset: 70_000_000 + n * 1_000_000,
	key: keyFor(`memory-send-${items}`),
	warmupKey: keyFor(`warmup-memory-send-${items}`),
	capped: n === SIZES.sendMemory.length - 1,
}));

/** The first SMS Send row again with every send policy on (worker.ts: `policies`): its memory and rate beside the row without. */
const first = sendMemoryScenarios[0];
export const policiesMemoryScenario = {
	...first,
	id: `${first.id}-policies`,
	label: 'SMS Send, live heap, every send policy on',
	policies: true,
	offset: first.offset + 500_000,
	key: keyFor(`${first.id}-policies`),
	warmupKey: keyFor(`warmup-${first.id}-policies`),
	capped: false,
};

/** Runs `s` in a fresh worker with `v8Flags`, after `warmup` if any; notes the old-space limit. */
async function freshProcessRow(bench: Bench, s: LabelledScenario, v8Flags: string[], limitMb?: number, warmup?: LabelledScenario): Promise<Row> {
	const worker = new BenchWorker(v8Flags);
	try {
		if (warmup) await worker.run(warmup, bench.url);
		const row = await nodeRow(bench, s, worker);
		if (limitMb) row.extra = { ...row.extra, oldSpaceLimitMb: limitMb };
		const sampled = row.extra?.liveHeapSamples ? `+${String(row.extra?.liveHeapGrowthMb)} MB = ${String(row.extra?.liveHeapKbPerItem)} KB per item (${String(row.extra?.liveHeapSamples)} samples)` : 'not sampled';
		log(`bench: ${s.id}: live heap ${sampled}, heap peak +${String(row.peakHeapGrowthMb ?? '–')} MB, ${row.accepted}/${row.items} accepted, ${row.rateLimited} × 429, ${((row.rateRatio ?? 0) * 100).toFixed(1)} % of the plan; send ledger in n8n's database: ${String(row.extra?.durableCalls)} calls, ${String(row.extra?.durableUsPerItem)} µs of CPU per item, rows ${String(row.extra?.durableRowsMb)} MB`);
		return row;
	} finally {
		await worker.stop();
	}
}

/** A capped row whose process V8 aborted (out of memory): the send did not fit, which the row's target reports; the bench goes on. */
function abortedRow(s: LabelledScenario, limitMb: number, error: unknown): Row {
	const notes = `the process ended before the send did (${(error as Error).message}: V8 out of memory at the old-space limit)`;
	log(`bench: ${s.id}: ${notes}`);
	const none = { calls: 0, expectedCalls: null, rateLimited: 0, otherErrors: 0, accepted: 0, achievedRate: null, rateRatio: null, serviceBusy: null };
	const figures = { wallS: 0, minimumS: 0, wallRatio: 0, cpuMsPer10k: 0, cpuMsPerCall: null, rssGrowthMb: null, heapGrowthMb: null, peakHeapGrowthMb: null, callsPerItem: null };
	return { id: s.id, label: s.label, kind: 'node', plan: s.plan, items: s.items, recipients: s.items, ...none, ...figures, lost: s.items, notes, extra: { oldSpaceLimitMb: limitMb } };
}

/** The heap a run of `s` starts from in a fresh process (its input items built, after a GC). */
async function baselineOf(s: LabelledScenario | (typeof sendMemoryScenarios)[number]): Promise<number> {
	const probe = new BenchWorker();
	try {
		return await probe.baselineMb(s);
	} finally {
		await probe.stop();
	}
}

export async function memoryRows(bench: Bench): Promise<Row[]> {
	const rows: Row[] = [];
	const uncapped = want(bulkMemoryScenario.id) ? await freshProcessRow(bench, bulkMemoryScenario, []) : undefined;
	if (uncapped) rows.push(uncapped);
	// V8 grows its heap lazily when it may (its limit follows the live heap: here the 100,000 input
	// items), so the heap peak shows what V8 chose to keep, not what the send needs. A second fresh
	// process whose old generation may grow by MEMORY_TARGET_MB above the same baseline shows whether
	// the send fits: it completes (else V8 aborts: out of memory) and its CPU shows the extra GC.
	if (uncapped || want(bulkCappedScenario.id)) {
		const baselineMb = (uncapped?.extra?.heapBeforeMb as number | undefined) ?? (await baselineOf(bulkCappedScenario));
		const limitMb = Math.ceil(baselineMb + MEMORY_TARGET_MB);
		rows.push(await freshProcessRow(bench, bulkCappedScenario, [`--max-old-space-size=${limitMb}`], limitMb).catch((error: unknown) => abortedRow(bulkCappedScenario, limitMb, error)));
	}
	for (const { capped, warmupKey, ...scenario } of [...sendMemoryScenarios, policiesMemoryScenario]) {
		if (!want(scenario.id)) continue;
		let limitMb: number | undefined;
		if (capped) limitMb = Math.ceil((await baselineOf(scenario)) + SEND_CAP_MB);
		// Once the node's code is loaded and warm: the live heap then shows what the send holds per item.
		const warmup = { id: 'warmup-memory-send', label: '', operation: 'send' as const, plan: 'business' as Plan, items: 200, key: warmupKey, offset: scenario.offset + 900_000 };
		rows.push(await freshProcessRow(bench, scenario, limitMb ? [`--max-old-space-size=${limitMb}`] : [], limitMb, warmup));
	}
	return rows;
}

/** Every key the memory rows use, for the bench account. */
export const memoryKeys = (): Array<{ key: string; plan: Plan }> => [
	...[bulkMemoryScenario, bulkCappedScenario, ...sendMemoryScenarios, policiesMemoryScenario].map((s) => ({ key: s.key, plan: s.plan })),
	...[...sendMemoryScenarios, policiesMemoryScenario].map((s) => ({ key: s.warmupKey, plan: 'business' as Plan })),
];
