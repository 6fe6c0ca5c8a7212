import Bottleneck from 'bottleneck';
import { sleep } from 'n8n-workflow';

import type { PlanLimits } from './service';

/**
 * One limiter per API key, shared by every node and execution in this n8n process, so that
 * concurrent workflows on the same key together stay within the plan's request rate.
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

const limiters = new Map<string, KeyLimiter>();

const SLOWDOWN_FACTOR = 1.25;
const MAX_SLOWDOWN = 2;
const RECOVERY_PER_SUCCESS = 0.01;

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
 */
function createLimiter(limits: PlanLimits): KeyLimiter {
	const baseMinTime = 1000 / limits.requestsPerSecond;
	let slowdown = 1;
	let pausedUntil = 0;
	const lookahead = Math.max(1, Math.ceil(limits.requestsPerSecond / 4));
	const bottleneck = new Bottleneck({ minTime: baseMinTime, maxConcurrent: lookahead });
	const gate = async () => {};
	// Waiting requests per lane, and the lanes with waiting requests in turn order.
	const lanes = new Map<string, Array<() => void>>();
	const turns: string[] = [];
	const next = () => {
		const lane = turns.shift()!;
		const queue = lanes.get(lane)!;
		queue.shift()!();
		if (queue.length) turns.push(lane);
		else lanes.delete(lane);
	};

	return {
		limits,
		async schedule<T>(task: () => Promise<T>, lane = '') {
			// Every request adds one gate; each gate that passes starts the next lane's oldest request.
			const started = new Promise<void>((resolve) => {
				const queue = lanes.get(lane);
				if (queue) queue.push(resolve);
				else {
					lanes.set(lane, [resolve]);
					turns.push(lane);
				}
			});
			void bottleneck.schedule(gate).then(next);
			await started;
			return await task();
		},
		penalize(waitMs: number) {
			pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
			slowdown = Math.min(MAX_SLOWDOWN, slowdown * SLOWDOWN_FACTOR);
			// An empty reservoir holds every gate not yet given a start time (those of the next quarter
			// second still pass); when it is lifted they pass at the (slower) minTime spacing.
			void bottleneck.updateSettings({ reservoir: 0, minTime: baseMinTime * slowdown });
			void sleep(waitMs).then(() => {
				if (Date.now() >= pausedUntil) void bottleneck.updateSettings({ reservoir: null });
			});
		},
		recover() {
			if (slowdown === 1) return;
			slowdown = Math.max(1, slowdown - RECOVERY_PER_SUCCESS);
			void bottleneck.updateSettings({ minTime: baseMinTime * slowdown });
		},
	};
}

/** The lane of a node's requests: its execution and node (a workflow's executions never share one). */
export function laneOf(ctx: { getExecutionId?: () => string | undefined; getNode: () => { name: string } }): string {
	return `${ctx.getExecutionId?.() ?? ''}\u0000${ctx.getNode().name}`;
}

/** The key is kept in process memory only (as n8n keeps decrypted credentials); it is never logged. */
export function limiterFor(baseUrl: string, apiKey: string, limits: PlanLimits): KeyLimiter {
	const id = `${baseUrl}\u0000${apiKey}\u0000${limits.requestsPerSecond}`;
	let limiter = limiters.get(id);
	if (!limiter) {
		limiter = createLimiter(limits);
		limiters.set(id, limiter);
	}
	return limiter;
}

/**
 * How many requests one execution keeps waiting in (or passing through) a key's shared limiter:
 * half a second of the plan's rate. Enough to keep the limiter busy while a call takes up to about
 * that long to answer, and small enough that concurrent executions on the key take turns soon
 * even when their requests share a lane, instead of one execution's whole list going first.
 */
export function requestWindow(limits: PlanLimits): number {
	return Math.max(2, Math.ceil(limits.requestsPerSecond / 2));
}

/**
 * `task(0) … task(count - 1)` with at most `window` running at once, results in index order.
 * Use it instead of `Promise.all` over every item for requests that pass the key's limiter.
 */
export async function inWindow<T>(count: number, window: number, task: (index: number) => Promise<T>): Promise<T[]> {
	const results = new Array<T>(count);
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			results[index] = await task(index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(window, count) }, worker));
	return results;
}
