import Bottleneck from 'bottleneck';
import { sleep } from 'n8n-workflow';

import type { PlanLimits } from './service';
import { connectionId, digest, type SharedLimitConfig } from './redis';
import { applySettings, GATE_EXPIRATION_MS, joinCluster, type ClusterStore } from './sharedLimit';

/**
 * One limiter per API key, shared by every node and execution in this n8n process (or, with a
 * shared limit, by every process on the key), so that concurrent workflows on the same key
 * together stay within the plan's request rate.
 */
export interface KeyLimiter {
	/**
	 * Runs `task` when the key's rate allows. `lane` names the caller (see laneOf): waiting requests
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
}

/**
 * Spacing is exactly 1000/rate ms: the service refills the key's budget at the plan rate, so
 * steady spacing at that interval never exceeds it, and the budget's spare capacity absorbs
 * network jitter. Bottleneck keeps a virtual schedule (each start is the previous one + minTime),
 * so a late timer does not lower the rate.
 *
 * Bottleneck only passes a *gate* (a job that returns at once; the request runs outside it) and
 * gives a start time to the gates of the next quarter second only (`maxConcurrent`): the other
 * requests wait in its queue, so a 429's pause and slowdown apply to them at once, while an event
 * loop busy for less than that quarter second (a large response being parsed) costs no rate.
 *
 * With a shared limit the same Bottleneck is clustered on Redis: spacing, pause (reservoir 0) and
 * slowdown then hold for every process on the key, with one gate registered at a time. Should Redis fail, the
 * requests still waiting fail unsent (never sent unpaced) and the next use connects anew.
 */
function createLimiter(limits: PlanLimits, cluster?: ClusterStore): KeyLimiter {
	const baseMinTime = 1000 / limits.requestsPerSecond;
	let slowdown = 1;
	const bottleneck = cluster?.bottleneck ?? new Bottleneck({ minTime: baseMinTime, maxConcurrent: lookaheadOf(limits) });
	const pause: PauseStore = cluster ?? localPause();
	// A crashed process's gate stops holding the cluster's look-ahead after this long.
	const gateOptions = cluster ? { expiration: GATE_EXPIRATION_MS } : {};
	const gate = async () => {};
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
			// Every request adds one gate; each gate that passes starts the next lane's oldest request.
			const started = new Promise<void>((start, fail) => {
				const queue = lanes.get(lane);
				if (queue) queue.push({ start, fail });
				else {
					lanes.set(lane, [{ start, fail }]);
					turns.push(lane);
				}
				waiting++;
			});
			bottleneck.schedule(gateOptions, gate).then(
				() => take()?.start(),
				// In a cluster any failure here is Redis's: the request was not sent.
				(error: Error) => take()?.fail(cluster ? cluster.fail(error) : error),
			);
			void checkForStuckPause();
			await started;
			return await task();
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

function lookaheadOf(limits: PlanLimits): number {
	return Math.max(1, Math.ceil(limits.requestsPerSecond / 4));
}

/** The lane of a node's requests: its execution and node (a workflow's executions never share one). */
export function laneOf(ctx: { getExecutionId?: () => string | undefined; getNode: () => { name: string } }): string {
	return `${ctx.getExecutionId?.() ?? ''}\u0000${ctx.getNode().name}`;
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
		// One gate at a time across the cluster: a process stalled while holding it (a busy event loop, a
		// cold start) holds the others back instead of letting them run ahead and send in a burst after.
		const cluster = await joinCluster(shared, bottleneckId, { minTime: 1000 / limits.requestsPerSecond, maxConcurrent: 1 });
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
