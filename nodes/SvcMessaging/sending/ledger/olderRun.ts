import { SEND_LEDGER } from './ledgerBounds';
import type { MarkBlocks } from './markBlocks';

/**
 * Whether a Retry repeats a run older than the marks it honours (this and the previous half-day:
 * 12 to 24 hours, durableMarks.ts): the plan's first message (its own marks, or its first block's
 * when the block was accepted whole) asked in the half-days before those, back to
 * SEND_LEDGER.olderRunLookBackMs. A run that did not finish leaves its marks in the row, so a Retry
 * a day after a kill finds them there, too old to hold its messages back, and can say so.
 */
export function olderRunMarks(first: string | undefined, nameOf: (message: string) => string, blocks: MarkBlocks | undefined, now: number) {
	const { bucketMs } = SEND_LEDGER.durable;
	const kept = [now, now - 1];
	const older = Array.from({ length: Math.floor(SEND_LEDGER.olderRunLookBackMs / bucketMs) - 1 }, (_, i) => now - 2 - i);
	const marksIn = (bucket: number) => {
		if (first === undefined) return [];
		const digest = nameOf(first);
		const own = [`u:${digest}:${bucket}`, `a:${digest}:${bucket}`];
		return blocks ? [...own, blocks.marksOf(0, 0, bucket).whole] : own;
	};
	return {
		asked: [...kept, ...older].flatMap(marksIn),
		/** The start of the newest older half-day that holds the run, when the kept ones do not (epoch ms). */
		olderRunAt(found: ReadonlySet<string>): number | undefined {
			if (kept.some((bucket) => marksIn(bucket).some((m) => found.has(m)))) return undefined;
			const bucket = older.find((b) => marksIn(b).some((m) => found.has(m)));
			return bucket === undefined ? undefined : bucket * bucketMs;
		},
	};
}
