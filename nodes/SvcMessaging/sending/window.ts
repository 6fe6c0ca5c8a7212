import type { PlanLimits } from '../transport/service';
import { errorCodeOf, REDIS_UNAVAILABLE } from '../transport/errors';
import type { ItemFailure, Outcome } from './outcomes';

/**
 * How much of the plan's rate one send keeps waiting in (or passing through) the key's limiter:
 * enough to keep every slot busy while answers take up to about a second, and bounded whatever the
 * length of the input (a promise and a limiter job per item held 4-5 KB each for the whole run).
 */
export const SEND_WINDOW_SECONDS = 2;

/** Requests one send keeps under way at once: SEND_WINDOW_SECONDS of the plan's rate. */
export function sendWindow(limits: PlanLimits): number {
	return Math.max(2, Math.ceil(limits.requestsPerSecond * SEND_WINDOW_SECONDS));
}

/**
 * `task(0) … task(count - 1)` with at most `window` under way at once, results in index order:
 * for requests that pass the key's limiter but send nothing (Send and Wait's lookups).
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

/**
 * Runs `step` over `work` (single messages, or Send Bulk's calls) with at most `window` under way
 * at once: the next is started as one settles, so promises and limiter jobs do not grow with the
 * list. A step answers the failure that stops the send, if any: the shared Redis lost (the limiter
 * failed its waiting requests unsent), when posting on would make each later request connect to
 * Redis anew, one after another. Answers the work not started (to fail together, unsent) and why.
 */
export async function postInWindow<W>(
	work: W[],
	window: number,
	step: (w: W) => Promise<ItemFailure | undefined>,
): Promise<{ notStarted: W[]; lost?: ItemFailure }> {
	let next = 0;
	let lost: ItemFailure | undefined;
	const worker = async () => {
		while (next < work.length && !lost) {
			const stopped = await step(work[next++]);
			lost ??= stopped;
		}
	};
	await Promise.all(Array.from({ length: Math.min(window, work.length) }, worker));
	return { notStarted: lost ? work.slice(next) : [], lost };
}

/** The failure of a unit that stops a send: the shared Redis lost. */
export function redisLost(outcome: Outcome): ItemFailure | undefined {
	return !outcome.ok && errorCodeOf(outcome.error) === REDIS_UNAVAILABLE ? outcome : undefined;
}
