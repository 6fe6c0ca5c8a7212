import type { PlanLimits } from './service';

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
