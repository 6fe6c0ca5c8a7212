/**
 * A worker that dies holding shared slots: 3 worker processes on one fresh Starter key, the limit
 * shared through Redis, one of them SIGKILLed mid-send. Its slots stay taken until their lease runs
 * out (transport/slotLease.ts); the row measures, from the emulator's arrival times, how long after
 * the kill the other two are back at ≥ 95 % of the plan, and counts 429s (none may come).
 */
import { clearRequestLog, logFigures, PLANS, requestLog, round, seedAccount } from './lib';
import { keyFor, log } from './config';
import type { NodeScenario } from './worker';
import type { BenchWorker } from './workerProcess';

export interface DeadWorkerRow {
	id: string;
	label: string;
	processes: number;
	rate: number;
	/** ms after the start when the third process was killed */
	killedAfterMs: number;
	requests: number;
	accepted: number;
	rateLimited: number;
	mostInAnySecond: number;
	/** share of the plan in the 5 s before the kill */
	rateBeforeKill: number | null;
	/** share of the plan from the kill to 15 s after it */
	rateFirst15sAfterKill: number | null;
	/**
	 * seconds from the kill until every 2-second window from then on (until the last arrival) holds
	 * ≥ 95 % of the plan's requests; null when never
	 */
	recoveredAfterS: number | null;
	/** share of the plan from 10 s after the kill to the last arrival */
	rateFrom10sAfterKill: number | null;
	/** share of the plan from recovery to the last arrival */
	rateAfterRecovery: number | null;
	survivorsDone: boolean;
}

export const DEAD_WORKER_ID = 'dead-worker-starter-3-shared';
const KILL_AFTER_MS = 8_000;
const WINDOW_MS = 2_000;

export async function deadWorkerRow(url: string, workers: BenchWorker[], sharedLimit: NodeScenario['sharedLimit'], offset: number, perProcess: number): Promise<DeadWorkerRow> {
	const planName = 'starter';
	const plan = PLANS[planName];
	const key = keyFor(DEAD_WORKER_ID);
	await seedAccount(url, [{ key, plan: planName }]);
	await clearRequestLog(url);
	const label = `3 processes on one fresh starter key, Send, limiter shared (Redis); the third SIGKILLed after ${KILL_AFTER_MS / 1000} s`;
	log(`bench: ${DEAD_WORKER_ID} (${label}, 3 × ${perProcess} items)`);
	const armed = await Promise.all(
		workers.map(async (w, i) => await w.arm({ id: DEAD_WORKER_ID, operation: 'send', plan: planName, items: perProcess, key, offset: offset + i * perProcess, tag: `D${i + 1}-`, sharedLimit }, url)),
	);
	const startAt = Date.now() + 250;
	const runs = armed.map(async (a) => await a.start(startAt));
	// The killed process's run ends in an error: caught from the start.
	const killedRun = runs[2].catch(() => undefined);
	await new Promise((resolve) => setTimeout(resolve, startAt + KILL_AFTER_MS - Date.now()));
	const killedAt = Date.now();
	workers[2].kill();
	const survivors = await Promise.allSettled(runs.slice(0, 2));
	await killedRun;

	const requests = await requestLog(url, key);
	const figures = logFigures(requests, plan.rate);
	const times = requests.filter((r) => r.status !== null && r.status < 400).map((r) => Date.parse(r.time)).sort((a, b) => a - b);
	const last = times[times.length - 1] ?? killedAt;
	const rateIn = (from: number, to: number) => (to > from ? (times.filter((t) => t >= from && t < to).length * 1000) / (to - from) / plan.rate : null);
	// The first moment after the kill from which every 2 s window (stepping 100 ms) is at ≥ 95 %.
	let recovered: number | null = null;
	for (let at = last - WINDOW_MS; at >= killedAt; at -= 100) {
		if ((rateIn(at, at + WINDOW_MS) ?? 0) < 0.95) break;
		recovered = at;
	}
	return {
		id: DEAD_WORKER_ID,
		label,
		processes: workers.length,
		rate: plan.rate,
		killedAfterMs: killedAt - startAt,
		requests: figures.calls,
		accepted: figures.okCalls,
		rateLimited: figures.rateLimited,
		mostInAnySecond: figures.mostInAnySecond,
		rateBeforeKill: round(rateIn(killedAt - 5_000, killedAt), 3),
		rateFirst15sAfterKill: round(rateIn(killedAt, Math.min(last, killedAt + 15_000)), 3),
		rateFrom10sAfterKill: round(rateIn(killedAt + 10_000, last), 3),
		recoveredAfterS: recovered === null ? null : round((recovered - killedAt) / 1000, 1),
		rateAfterRecovery: recovered === null ? null : round(rateIn(recovered, last), 3),
		survivorsDone: survivors.every((s) => s.status === 'fulfilled' && !s.value.executions[0].error),
	};
}
