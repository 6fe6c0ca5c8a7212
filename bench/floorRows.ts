/**
 * The floor: Send and a minimal node calling n8n-core's helpers.httpRequest on the same endpoint (and
 * that node through one Bottleneck job per request), the same number of SMS at Business pace, in
 * alternating rounds in one process, so the machine's load hits every side alike.
 */
import { median, round, type Plan } from './lib';
import { SIZES } from './config';
import { nodeRow, type Bench, type Row } from './rows';
import type { BenchWorker } from './workerProcess';

/** CPU per SMS: Send, the floor, and the floor through one Bottleneck job per request. */
export interface FloorFigures {
	ratio?: number | null;
	sendCpuMsPerSms?: number | null;
	floorCpuMsPerSms?: number | null;
	limitedCpuMsPerSms?: number | null;
	/** the floor with one Bottleneck job per request, against the floor: the slot design's share */
	limitedRatio?: number | null;
	/** Send against that, all rounds summed: the rest of the package */
	sendToLimited?: number | null;
	/**
	 * Send against that in each round (the two sides back to back, so a busy moment of the machine
	 * hits both), and their median: the judged figure, steady where a sum moves with the one round
	 * that caught a major GC or a neighbour's burst.
	 */
	sendToLimitedByRound?: number[];
	sendToLimitedMedian?: number | null;
}

const sides = ['send', 'floor', 'floorLimited'] as const;
export type FloorKeys = Record<(typeof sides)[number], string>;

/** The rounds of one side summed into one row. */
function merge(id: string, label: string, list: Row[]): Row {
	const sum = (f: (r: Row) => number) => list.reduce((total, r) => total + f(r), 0);
	const items = sum((r) => r.items);
	const cpuMs = sum((r) => Number(r.extra?.cpuMs ?? 0));
	const calls = sum((r) => r.calls);
	return {
		...list[0],
		id,
		label,
		items,
		recipients: items,
		calls,
		expectedCalls: items,
		rateLimited: sum((r) => r.rateLimited),
		otherErrors: sum((r) => r.otherErrors),
		accepted: sum((r) => r.accepted),
		lost: sum((r) => r.lost),
		achievedRate: round(sum((r) => (r.achievedRate ?? 0) * r.items) / items),
		rateRatio: round(sum((r) => (r.rateRatio ?? 0) * r.items) / items, 3),
		wallS: round(sum((r) => r.wallS), 3)!,
		minimumS: round(sum((r) => r.minimumS), 3)!,
		wallRatio: round(sum((r) => r.wallS) / sum((r) => r.minimumS), 3)!,
		cpuMsPer10k: round((cpuMs / items) * 10_000, 1)!,
		cpuMsPerCall: calls ? round(cpuMs / calls, 2) : null,
		rssGrowthMb: null,
		heapGrowthMb: null,
		peakHeapGrowthMb: null,
		callsPerItem: round(calls / items, 4),
		extra: { cpuMs: round(cpuMs, 1), rounds: SIZES.floor.rounds },
	};
}

export async function floorRows(bench: Bench, worker: BenchWorker, keys: FloorKeys): Promise<{ rows: Row[]; floor: FloorFigures }> {
	const per = Math.ceil(SIZES.floor.items / SIZES.floor.rounds);
	const parts: Record<(typeof sides)[number], Row[]> = { send: [], floor: [], floorLimited: [] };
	for (let round = 0; round < SIZES.floor.rounds; round++) {
		// Each round starts with the next side, so that no side always runs first (or after another).
		const order = sides.map((_, n) => sides[(n + round) % sides.length]);
		for (const which of order) {
			const side = sides.indexOf(which);
			const id = which === 'floorLimited' ? 'floor-limited-business' : `${which}-business`;
			const s = { id, label: '', operation: which, plan: 'business' as Plan, items: per, key: keys[which], offset: 60_000_000 + round * 10_000 + side * 3_000 };
			parts[which].push(await nodeRow(bench, s, worker));
		}
	}
	const sendRow = merge('send-business', `Send (1 request/item, limiter), ${SIZES.floor.rounds} rounds alternating with the floor`, parts.send);
	const floorRow = merge('floor-business', "Floor: minimal node, n8n-core's helpers.httpRequest per item", parts.floor);
	const limitedRow = merge('floor-limited-business', 'Floor + one Bottleneck job per request (the slot design alone)', parts.floorLimited);
	const perSms = (r: Row) => round(r.cpuMsPer10k / 10_000, 3);
	const cpuOf = (r: Row) => Number(r.extra?.cpuMs ?? 0);
	const byRound = parts.send.map((r, n) => cpuOf(r) / cpuOf(parts.floorLimited[n]));
	const floor: FloorFigures = {
		ratio: round(sendRow.cpuMsPer10k / floorRow.cpuMsPer10k, 2),
		sendCpuMsPerSms: perSms(sendRow),
		floorCpuMsPerSms: perSms(floorRow),
		limitedCpuMsPerSms: perSms(limitedRow),
		limitedRatio: round(limitedRow.cpuMsPer10k / floorRow.cpuMsPer10k, 2),
		sendToLimited: round(sendRow.cpuMsPer10k / limitedRow.cpuMsPer10k, 2),
		sendToLimitedByRound: byRound.map((ratio) => round(ratio, 2)!),
		sendToLimitedMedian: round(median(byRound), 2),
	};
	return { rows: [sendRow, floorRow, limitedRow], floor };
}
