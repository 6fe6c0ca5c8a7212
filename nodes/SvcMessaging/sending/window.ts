import type { PlanLimits } from '../transport/service';
import { errorCodeOf, REDIS_UNAVAILABLE } from '../transport/errors';
import type { ItemFailure } from './outcomes';
import type { SendUnit, Settle, UnitOutcome } from './round';

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
 * Posts `work` (single messages, or Send Bulk's calls) with at most `window` under way at once:
 * the next is started as one settles, so promises and limiter jobs do not grow with the list.
 *
 * When the shared Redis is lost (an outcome coded REDIS_UNAVAILABLE: the limiter failed its
 * waiting requests unsent), nothing more is posted: every unit not yet started fails unsent with
 * that error, together, in one settle (one ledger write). Posting on would make each later request
 * connect to Redis anew, one after another.
 */
export async function postInWindow<W, U extends SendUnit>(
	work: W[],
	window: number,
	post: (w: W, settle: Settle<U>) => Promise<void>,
	unitsOf: (w: W) => U[],
	settle: Settle<U>,
): Promise<void> {
	let next = 0;
	let lost: ItemFailure | undefined;
	const watched: Settle<U> = async (results) => {
		for (const [, outcome] of results) if (!outcome.ok && errorCodeOf(outcome.failure.error) === REDIS_UNAVAILABLE) lost ??= outcome.failure;
		await settle(results);
	};
	const worker = async () => {
		while (next < work.length && !lost) await post(work[next++], watched);
	};
	await Promise.all(Array.from({ length: Math.min(window, work.length) }, worker));
	if (!lost || next >= work.length) return;
	const error = lost.error;
	const unsent: Array<[U, UnitOutcome]> = [];
	for (const w of work.slice(next)) for (const unit of unitsOf(w)) unsent.push([unit, { ok: false, failure: { itemIndex: unit.itemIndex, error } }]);
	await settle(unsent);
}
