import Bottleneck from 'bottleneck';
import { sleep } from 'n8n-workflow';

import type { PlanLimits } from './service';
import { RoundTrips, SLOT_HOLD_MS, type ShrinkRule } from './roundTrips';
import { applySettings, type ClusterStore } from './sharedLimit';

/**
 * One limiter per API key, shared by every node and execution in this n8n process (or, with a
 * shared limit, by every process on the key), so that concurrent workflows on the same key
 * together stay within the plan's request rate.
 */
export interface KeyLimiter {
	/**
	 * Runs `task` when the key's rate allows. `lane` names the caller (see lanes.ts): waiting requests
	 * of different lanes take turns, so concurrent executions on one key get an equal share.
	 */
	schedule<T>(task: () => Promise<T>, lane?: string): Promise<T>;
	/** A 429 arrived: hold every request on this key for `waitMs`, then go on a little slower. */
	penalize(waitMs: number): void;
	/** A request succeeded: drift back toward the plan's rate. */
	recover(): void;
	readonly limits: PlanLimits;
}

/** What the registry (limiter.ts) needs to let an idle limiter go. */
export interface OwnedLimiter extends KeyLimiter {
	/** Since when nothing is queued, held or paused (Date.now() ms); undefined while busy. */
	idleSince(): number | undefined;
	/** From now on every call goes to `successor()`: this limiter runs nothing more. */
	retire(successor: () => Promise<KeyLimiter>): void;
}

export interface LimiterOptions {
	cluster?: ClusterStore;
	/** How much of a slot's hold a round trip may shrink (roundTrips.ts); tests pass other rules. */
	shrink?: ShrinkRule;
}

const SLOWDOWN_FACTOR = 1.25;
const MAX_SLOWDOWN = 2;
const RECOVERY_PER_SUCCESS = 0.01;
/** How often a process with waiting requests checks that a shared pause was not left behind. */
const STUCK_PAUSE_CHECK_MS = 2_000;
/**
 * How often a process on a shared limit publishes its shrink and reads the key's least: a slot may
 * be taken next by another process, whose way in may be shorter (sharedLimit.ts sharedShrink).
 */
const SHARE_EVERY_MS = 1_000;

/** Where the 429 pause lives: this process's memory, or Redis for a shared limit. */
interface PauseStore {
	extendPause(waitMs: number): Promise<void>;
	pauseRemainingMs(): Promise<number>;
}

function localPause(): PauseStore {
	let pausedUntil = 0;
	return {
		async extendPause(waitMs) {
			pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
		},
		async pauseRemainingMs() {
			return Math.max(0, pausedUntil - Date.now());
		},
	};
}

interface Waiter {
	start: () => void;
	fail: (error: Error) => void;
	/** settles when the request has its answer (or failed) */
	done: Promise<void>;
}

/**
 * Starts are spaced 0.8 × 1000/N ms: a burst is still spread over the second, and slots that came due
 * while the event loop was held (a GC, another workflow) catch up. At exactly 1000/N no start is made
 * up: a 60 ms pause every 5 s cost up to 1.5 % of Business's rate. The slots keep N + 1 out of any second.
 */
export const startSpacingMs = (limits: PlanLimits) => 800 / limits.requestsPerSecond;

/**
 * Bottleneck runs one *slot* per request: a job that starts the request, waits for its answer and
 * then holds its place (roundTrips.ts: 1,000 ms less what of the round trip certainly came after the
 * request's arrival). `maxConcurrent` is the plan's N, so N slots at most are taken, and two requests
 * of one slot arrive at the service ≥ 1,000 ms apart: the strictest reading of "N requests per
 * second" (never N + 1 in any 1,000 ms) holds by construction, however the timers ran (a late timer,
 * a busy event loop, several processes). Starts are spaced (`minTime`, startSpacingMs), so a burst is
 * spread over the second. A 429's pause (reservoir 0) and slowdown (a longer minTime) apply to every
 * slot not yet started.
 *
 * With a shared limit the same Bottleneck is clustered on Redis: the N slots, spacing, pause and
 * slowdown then hold for every process on the key together, and a slot is leased (slotLease.ts) so
 * that a process that died gives its slots back in seconds. Should Redis fail, the requests still
 * waiting fail unsent (never sent unpaced) and the next use connects anew.
 */
export function createLimiter(limits: PlanLimits, options: LimiterOptions = {}): OwnedLimiter {
	const { cluster } = options;
	const baseMinTime = startSpacingMs(limits);
	let slowdown = 1;
	const bottleneck = cluster?.bottleneck ?? new Bottleneck({ minTime: baseMinTime, maxConcurrent: limits.requestsPerSecond });
	const pause: PauseStore = cluster ?? localPause();
	const trips = new RoundTrips(options.shrink);
	// With a shared limit, the least shrink of every process on the key (0 until this process learns it).
	let clusterShrink = 0;
	let lastShare = 0;
	const shareShrink = async () => {
		lastShare = Date.now();
		clusterShrink = await cluster!.sharedShrink(trips.shrinkMs());
	};
	const holdMs = () => SLOT_HOLD_MS - (cluster ? Math.min(trips.shrinkMs(), clusterShrink) : trips.shrinkMs());
	// Shared slots are leases (slotLease.ts), each job under an id of its own.
	let jobs = 0;
	// Waiting requests per lane, and the lanes with waiting requests in turn order.
	const lanes = new Map<string, Waiter[]>();
	const turns: string[] = [];
	let waiting = 0;
	let failure: Error | undefined;
	// Slots scheduled and not over, and pauses under way: while any, the limiter is busy.
	let busy = 0;
	let idleFrom = Date.now();
	let successor: (() => Promise<KeyLimiter>) | undefined;
	const begin = () => void busy++;
	const end = () => {
		if (--busy === 0) idleFrom = Date.now();
	};
	const take = (): Waiter | undefined => {
		const lane = turns.shift();
		if (lane === undefined) return undefined;
		const queue = lanes.get(lane)!;
		const waiter = queue.shift()!;
		if (queue.length) turns.push(lane);
		else lanes.delete(lane);
		waiting--;
		return waiter;
	};
	const liftPauseWhenDue = async () => {
		for (let left = await pause.pauseRemainingMs(); left > 0; left = await pause.pauseRemainingMs()) await sleep(left);
		await applySettings(bottleneck, { reservoir: null });
	};
	// The process that set a shared pause lifts it; should it stop first, a waiting process does.
	let checking = false;
	const checkForStuckPause = async () => {
		if (!cluster || checking) return;
		checking = true;
		try {
			while (waiting > 0 && !failure) {
				await sleep(STUCK_PAUSE_CHECK_MS);
				if ((await bottleneck.currentReservoir()) === 0 && (await pause.pauseRemainingMs()) === 0) {
					await applySettings(bottleneck, { reservoir: null });
				}
			}
		} catch {
			// Redis failures reach cluster.onFailure.
		} finally {
			checking = false;
		}
	};
	cluster?.onFailure((error) => {
		failure = error;
		for (let waiter = take(); waiter; waiter = take()) waiter.fail(error);
	});
	const slot = async (jobId: string) => {
		cluster?.lease.claim(jobId);
		const waiter = take();
		if (!waiter) return cluster?.lease.ended();
		try {
			const startedAt = Date.now();
			waiter.start();
			await waiter.done;
			trips.record(Date.now() - startedAt);
			if (cluster && trips.warm && Date.now() - lastShare >= SHARE_EVERY_MS) shareShrink().catch(() => undefined);
			await sleep(holdMs());
		} finally {
			cluster?.lease.ended();
		}
	};

	return {
		limits,
		async schedule<T>(task: () => Promise<T>, lane = '') {
			if (successor) return await (await successor()).schedule(task, lane);
			if (failure) throw failure;
			let answered = () => {};
			const done = new Promise<void>((resolve) => (answered = resolve));
			// Every request adds one slot; each slot that starts runs the next lane's oldest request.
			const started = new Promise<void>((start, fail) => {
				const queue = lanes.get(lane);
				if (queue) queue.push({ start, fail, done });
				else {
					lanes.set(lane, [{ start, fail, done }]);
					turns.push(lane);
				}
				waiting++;
			});
			begin();
			const jobId = `slot-${++jobs}`;
			bottleneck
				.schedule(cluster ? cluster.lease.options(jobId) : {}, slot, jobId)
				.catch(
					// In a cluster any failure here is Redis's: the request was not sent.
					(error: Error) => take()?.fail(cluster ? cluster.fail(error) : error),
				)
				.finally(end);
			if (cluster) void checkForStuckPause();
			await started;
			try {
				return await task();
			} finally {
				answered();
			}
		},
		penalize(waitMs: number) {
			if (successor) return void successor().then((next) => next.penalize(waitMs), () => undefined);
			slowdown = Math.min(MAX_SLOWDOWN, slowdown * SLOWDOWN_FACTOR);
			// An empty reservoir holds every gate not yet given a start time (those of the next quarter
			// second still pass); when it is lifted they pass at the (slower) minTime spacing.
			begin();
			void (async () => {
				await pause.extendPause(waitMs);
				await applySettings(bottleneck, { reservoir: 0, minTime: baseMinTime * slowdown });
				await sleep(waitMs);
				await liftPauseWhenDue();
			})()
				.catch(() => undefined)
				.finally(end);
		},
		recover() {
			if (successor || slowdown === 1) return;
			slowdown = Math.max(1, slowdown - RECOVERY_PER_SUCCESS);
			applySettings(bottleneck, { minTime: baseMinTime * slowdown }).catch(() => undefined);
		},
		idleSince: () => (busy === 0 ? idleFrom : undefined),
		retire(next) {
			successor = next;
		},
	};
}
