/** The printed tables: rows, rate rows, the floor line, the user comparison and the targets. */
import { only } from './config';
import type { FloorFigures } from './floorRows';
import type { DeadWorkerRow } from './deadWorkerRow';
import type { ProcessesRow } from './processRows';
import type { Row } from './rows';
import type { comparisons, Target } from './targets';

function pad(cells: string[][], left = 2) {
	const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
	return cells
		.map((row) => row.map((cell, c) => (c < left ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd())
		.join('\n');
}

const show = (value: number | null | undefined, suffix = '') => (value === null || value === undefined ? '–' : `${value}${suffix}`);

export function table(rows: Row[]) {
	const header = ['scenario', 'what', 'plan', 'items', 'calls', 'expected', '429', 'accepted', 'lost', 'calls/item', 'rate/plan', 'wall s', 'min s', 'wall/min', 'CPU ms/10k', 'CPU ms/call', 'RSS +MB', 'heap peak +MB', 'live heap +MB', 'live KB/item'];
	const body = rows.map((r) => [
		r.id,
		r.label,
		r.plan,
		String(r.items),
		String(r.calls),
		show(r.expectedCalls),
		String(r.rateLimited),
		String(r.accepted),
		String(r.lost),
		show(r.callsPerItem),
		r.rateRatio === null ? '–' : `${(r.rateRatio * 100).toFixed(1)} %`,
		r.wallS.toFixed(2),
		r.minimumS.toFixed(2),
		r.wallRatio.toFixed(3),
		r.cpuMsPer10k.toFixed(0),
		r.cpuMsPerCall === null ? '–' : r.cpuMsPerCall.toFixed(1),
		show(r.rssGrowthMb),
		show(r.peakHeapGrowthMb),
		show(r.extra?.liveHeapGrowthMb as number | undefined),
		show(r.extra?.liveHeapKbPerItem as number | undefined),
	]);
	const notes = rows.filter((r) => r.notes).map((r) => `  ${r.id}: ${r.notes}`);
	return `${pad([header, ...body])}${notes.length ? `\n\nnotes:\n${notes.join('\n')}` : ''}`;
}

export function processesTable(rows: ProcessesRow[]) {
	if (!rows.length) return 'N processes on one key: not run';
	const pct = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)} %`);
	const body = rows.map((r) => [
		r.id,
		r.plan,
		String(r.processes),
		r.sharedLimiter ? 'shared' : 'per process',
		r.latency ?? '0',
		String(r.items),
		String(r.requests),
		String(r.accepted),
		String(r.rateLimited),
		r.requestsPerAccepted === null ? '–' : r.requestsPerAccepted.toFixed(2),
		String(r.lost),
		`${r.mostInAnySecond} / ${r.inFirstSecond}`,
		pct(r.rateRatio),
		r.wallS.toFixed(2),
		r.minimumS.toFixed(2),
		String(r.startSpreadMs),
		`${show(r.minGapMs.accepted)} / ${show(r.minGapMs.all)}`,
		r.perProcess.map((p) => (p.shareWhileAllRan === null ? '–' : `${Math.round(p.shareWhileAllRan * 100)}`)).join('/'),
	]);
	const notes = rows.flatMap((r) =>
		r.perProcess
			.filter((p) => p.error)
			.map((p) => `  ${r.id} ${p.reference}: ${p.accepted} accepted; the node failed: ${p.error!.split('\n')[0]}`),
	);
	return `Rate rows: N processes started together on one fresh key (each Send, 1 request/item), the emulator counting a sliding window unless the scenario names another way:\n${pad([
		['scenario', 'plan', 'processes', 'limiter', 'ms each way', 'items', 'requests', 'accepted', '429', 'req/accepted', 'lost', 'most in 1 s / first s', 'rate/plan', 'wall s', 'min s', 'start spread ms', 'min gap ms (accepted / all)', 'share % while all ran'],
		...body,
	], 1)}${notes.length ? `\n\nnotes:\n${notes.join('\n')}` : ''}`;
}

export function floorLine(floor: FloorFigures) {
	if (floor.ratio === undefined) return 'Floor: not run';
	return (
		`Floor (same endpoint, same count, Business pace, alternating rounds in one process): Send ${floor.sendCpuMsPerSms} ms CPU per SMS, n8n-core's helpers.httpRequest alone ${floor.floorCpuMsPerSms} ms: ratio ${floor.ratio}. ` +
		`The floor through one Bottleneck job per request (the slot design alone): ${floor.limitedCpuMsPerSms} ms, ${floor.limitedRatio} × the floor; Send ${floor.sendToLimited} × that (per round ${floor.sendToLimitedByRound?.join(', ') ?? '–'}: median ${floor.sendToLimitedMedian ?? '–'})`
	);
}

export function comparisonTable(rows: ReturnType<typeof comparisons>) {
	const pct = (value: number | null) => (value === null ? '–' : `${value} %`);
	return `The same job at Free, as a user sees it (of the input items):\n${pad([
		['scenario', 'what', 'input items', 'accepted', 'lost', '429', 'calls', 'calls/item', 'wall s', 'wall s/1,000 items'],
		...rows.map((c) => [
			c.id,
			c.what,
			String(c.inputItems),
			`${c.accepted} (${pct(c.acceptedPct)})`,
			`${c.lost} (${pct(c.lostPct)})`,
			String(c.rateLimited),
			String(c.calls),
			show(c.callsPerInputItem),
			c.wallS.toFixed(2),
			show(c.wallSPer1000Items),
		]),
	])}`;
}

export function targetTable(targets: Target[]) {
	const result = (pass: boolean | null) => (pass === null ? 'not run' : pass ? 'met' : 'NOT MET');
	const table = pad([['target', 'result', 'figures'], ...targets.map((t) => [t.target, result(t.pass), t.detail])], 3);
	return only ? `Partial run (BENCH_ONLY=${only.join(',')}): only the rows that ran are judged.\n${table}` : table;
}

export function deadWorkerLine(row: DeadWorkerRow | undefined) {
	if (!row) return 'A worker that dies holding shared slots: not run';
	const pct = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)} %`);
	return `A worker that dies holding shared slots (${row.label}): ${pct(row.rateBeforeKill)} of the plan in the 5 s before the kill, ${pct(row.rateFirst15sAfterKill)} in the 15 s after it, ${pct(row.rateFrom10sAfterKill)} from 10 s after it to the end; back at ≥ 95 % ${row.recoveredAfterS === null ? 'never' : `${row.recoveredAfterS} s after the kill`} (then ${pct(row.rateAfterRecovery)}); ${row.rateLimited} × 429 in ${row.requests} requests, most in any 1,000 ms ${row.mostInAnySecond}; the others finished ${row.survivorsDone ? 'every item' : 'with an error'}`;
}
