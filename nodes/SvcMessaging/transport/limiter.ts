import Bottleneck from 'bottleneck';
import { sleep } from 'n8n-workflow';

import type { PlanLimits } from './service';
import { connectionId, digest, type SharedLimitConfig } from './redis';
import { applySettings, joinCluster, SLOT_EXPIRATION_MS, type ClusterStore } from './sharedLimit';

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

const limiters = new Map<string, Promise<KeyLimiter>>();

const SLOWDOWN_FACTOR = 1.25;
const MAX_SLOWDOWN = 2;
const RECOVERY_PER_SUCCESS = 0.01;
/** How often a process with waiting requests checks that a shared pause was not left behind. */
const STUCK_PAUSE_CHECK_MS = 2_000;

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
 * A request's slot stays taken this long after its answer. The key has N slots (the plan's
 * requests per second): request k + N cannot start before request k's answer + this hold, and
 * request k arrived before its answer, so no N + 1 requests arrive at the service within any
 * 1,000 ms, however the timers ran (a late timer, a busy event loop, several processes).
 */
const SLOT_HOLD_MS = 1_000;

/**
 * Starts are spaced 0.8 × 1000/N ms: a burst is still spread over the second, and slots that came due
 * while the event loop was held (a GC, another workflow) catch up. At exactly 1000/N no start is made
 * up: a 60 ms pause every 5 s cost up to 1.5 % of Business's rate. The slots keep N + 1 out of any second.
 */
const startSpacingMs = (limits: PlanLimits) => 800 / limits.requestsPerSecond;

/**
 * Bottleneck runs one *slot* per request: a job that starts the request, waits for its answer and
 * then holds its place for SLOT_HOLD_MS. `maxConcurrent` is the plan's N, so N slots at most are
 * taken: the strictest reading of "N requests per second" (never N + 1 in any 1,000 ms) holds by
 * construction. Starts are spaced (`minTime`, startSpacingMs), so a burst is spread over the second.
 * A 429's pause (reservoir 0) and slowdown (a longer minTime) apply to every slot not yet started.
 *
 * With a shared limit the same Bottleneck is clustered on Redis: the N slots, spacing, pause and
 * slowdown then hold for every process on the key together. Should Redis fail, the requests still
 * waiting fail unsent (never sent unpaced) and the next use connects anew.
 */
function createLimiter(limits: PlanLimits, cluster?: ClusterStore): KeyLimiter {
	const baseMinTime = startSpacingMs(limits);
	let slowdown = 1;
	const bottleneck = cluster?.bottleneck ?? new Bottleneck({ minTime: baseMinTime, maxConcurrent: limits.requestsPerSecond });
	const pause: PauseStore = cluster ?? localPause();
	// A crashed process's slots are given back to the cluster after this long.
	const slotOptions = cluster ? { expiration: SLOT_EXPIRATION_MS } : {};
	// Waiting requests per lane, and the lanes with waiting requests in turn order.
	const lanes = new Map<string, Waiter[]>();
	const turns: string[] = [];
	let waiting = 0;
	let failure: Error | undefined;
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

	return {
		limits,
		async schedule<T>(task: () => Promise<T>, lane = '') {
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
			const slot = async () => {
				const waiter = take();
				if (!waiter) return;
				waiter.start();
				await waiter.done;
				await sleep(SLOT_HOLD_MS);
			};
			bottleneck.schedule(slotOptions, slot).catch(
				// In a cluster any failure here is Redis's: the request was not sent.
				(error: Error) => take()?.fail(cluster ? cluster.fail(error) : error),
			);
			if (cluster) void checkForStuckPause();
			await started;
			try {
				return await task();
			} finally {
				answered();
			}
		},
		penalize(waitMs: number) {
			slowdown = Math.min(MAX_SLOWDOWN, slowdown * SLOWDOWN_FACTOR);
			// An empty reservoir holds every gate not yet given a start time (those of the next quarter
			// second still pass); when it is lifted they pass at the (slower) minTime spacing.
			void (async () => {
				await pause.extendPause(waitMs);
				await applySettings(bottleneck, { reservoir: 0, minTime: baseMinTime * slowdown });
				await sleep(waitMs);
				await liftPauseWhenDue();
			})().catch(() => undefined);
		},
		recover() {
			if (slowdown === 1) return;
			slowdown = Math.max(1, slowdown - RECOVERY_PER_SUCCESS);
			applySettings(bottleneck, { minTime: baseMinTime * slowdown }).catch(() => undefined);
		},
	};
}

/**
 * The key's limiter in this process; with `shared`, one clustered on that Redis for all processes.
 * The key is kept in process memory only (as n8n keeps decrypted credentials); Redis sees a hash.
 * Throws SharedLimitUnavailable when Redis cannot be reached (nothing is sent then).
 */
export async function limiterFor(
	baseUrl: string,
	apiKey: string,
	limits: PlanLimits,
	shared?: SharedLimitConfig,
): Promise<KeyLimiter> {
	const where = shared ? connectionId(shared) : '';
	const id = `${baseUrl}\u0000${apiKey}\u0000${limits.requestsPerSecond}\u0000${where}`;
	let limiter = limiters.get(id);
	if (!limiter) {
		limiter = shared ? sharedLimiter(id, baseUrl, apiKey, limits, shared) : Promise.resolve(createLimiter(limits));
		limiters.set(id, limiter);
	}
	return await limiter;
}

async function sharedLimiter(
	id: string,
	baseUrl: string,
	apiKey: string,
	limits: PlanLimits,
	shared: SharedLimitConfig,
): Promise<KeyLimiter> {
	const bottleneckId = `${shared.keyPrefix}:limiter:${digest(`${baseUrl}\u0000${apiKey}`)}:${limits.requestsPerSecond}`;
	// A limiter that could not join is forgotten (the next request tries again); its RedisUnavailable
	// goes on unchanged to the node-facing layer, which turns it into a NodeOperationError
	// (transport/request.ts sharedLimitError).
	let joined = false;
	try {
		// The key's N slots and its spacing, shared by every process on the key.
		const cluster = await joinCluster(shared, bottleneckId, { minTime: startSpacingMs(limits), maxConcurrent: limits.requestsPerSecond });
		// A failed limiter is forgotten: the next request connects again (and fails clearly if it cannot).
		cluster.onFailure(() => limiters.delete(id));
		clusters.add(cluster);
		const limiter = createLimiter(limits, cluster);
		joined = true;
		return limiter;
	} finally {
		if (!joined) limiters.delete(id);
	}
}

const clusters = new Set<ClusterStore>();

/** Disconnects every shared limiter of this process (tests and benchmarks end with this). */
export async function closeSharedLimiters(): Promise<void> {
	const open = [...clusters];
	clusters.clear();
	for (const id of [...limiters.keys()]) if (id.split('\u0000')[3]) limiters.delete(id);
	await Promise.all(open.map(async (cluster) => await cluster.close()));
}
