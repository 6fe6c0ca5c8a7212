/** Two executions at once on the same key in one process: together within the plan, an equal share each. */
import { clearRequestLog, logFigures, messages, PLANS, round } from './lib';
import { log } from './config';
import { withSendPosts } from './requestTap';
import { minimumMs, rowFrom, type Bench, type LabelledScenario, type Row } from './rows';
import type { BenchWorker } from './workerProcess';

export type SharedFigures = Record<string, unknown> & { executions: Array<{ shareWhileBothRan: number | null }> };

/** `accountId`: the scenario's own account, whose messages (with their references) tell the executions apart. */
export async function sharedRow(bench: Bench, scenario: LabelledScenario, accountId: string, worker: BenchWorker): Promise<{ row: Row; shared: SharedFigures }> {
	await clearRequestLog(bench.url);
	log(`bench: ${scenario.id} (${scenario.label}, ${scenario.executions} × ${scenario.items} items, one ${scenario.plan} key)`);
	const plan = PLANS[scenario.plan];
	const bulk = scenario.operation === 'sendBulk';
	const recipients = scenario.items * scenario.executions!;
	const calls = bulk ? scenario.executions! * Math.ceil(scenario.items / plan.perCall) : recipients;
	const { result, posts } = await withSendPosts(bench.url, scenario.key, calls, async () => await worker.run(scenario, bench.url));
	// When the service created each execution's messages (its reference tells them apart).
	const created = (await messages(bench.url, accountId)).map((m) => ({ ref: m.reference, at: Date.parse(m.createdAt) }));
	const times = result.executions.map((e) => created.filter((m) => m.ref === e.reference).map((m) => m.at));
	// Both executions start together: from the first call until the first of them is done.
	const overlapStart = Math.min(...times.map((t) => Math.min(...t)));
	const overlapEnd = Math.min(...times.map((t) => Math.max(...t)));
	// Calls (not recipients) of each execution while both had calls to make.
	const callsInOverlap = times.map((t) => {
		const inside = t.filter((at) => at >= overlapStart && at <= overlapEnd).length;
		return bulk ? Math.ceil(inside / plan.perCall) : inside;
	});
	const total = callsInOverlap.reduce((a, b) => a + b, 0);
	const shares = callsInOverlap.map((c) => round(total ? c / total : null, 3));
	const shared: SharedFigures = {
		executions: result.executions.map((e, i) => ({ ...e, wallMs: round(e.wallMs, 0), shareWhileBothRan: shares[i] })),
		overlapS: round((overlapEnd - overlapStart) / 1000, 2),
		finishGapS: round(Math.abs(Math.max(...times[0]) - Math.max(...times[1])) / 1000, 2),
	};
	const minMs = minimumMs(bench, scenario.plan, calls, bulk ? plan.perCall : 1);
	const row = rowFrom({ ...scenario, kind: 'node' }, recipients, calls, minMs, result, logFigures(posts, plan.rate));
	row.notes = `calls of each execution while both ran: ${shares.map((x) => `${((x ?? 0) * 100).toFixed(0)} %`).join(' / ')}; finished ${String(shared.finishGapS)} s apart`;
	row.extra = shared;
	return { row, shared };
}
