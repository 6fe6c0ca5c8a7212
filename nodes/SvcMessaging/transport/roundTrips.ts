/**
 * How long a slot stays taken after its request's answer (limiter.ts): 1,000 ms less the part of a
 * round trip that is certainly spent after one request arrived and before the next one can arrive.
 *
 * Request k arrived at the service no later than its answer (seen here at a_k) less its way back;
 * the next request on the slot starts at a_k + hold and arrives no earlier than that plus its way
 * in. Both arrive ≥ 1,000 ms apart when hold ≥ 1,000 − (way back of k + way in of the next). That
 * sum mixes the legs of two requests, so it is one more draw of the round-trip distribution: it can
 * fall below the smallest round trip seen so far (with n seen, about 1 time in n). The shrink is
 * therefore not the smallest round trip but a lower estimate of the floor the round trips approach:
 * the smallest, less the spread of the SMALLEST_KEPT smallest, less SAFETY_MS; and none before
 * SMALLEST_KEPT answers. Measured against the emulator's sliding window under jitter
 * (test/limiter/distance.test.ts): the plain smallest round trip lets 429s through.
 */
export const SLOT_HOLD_MS = 1_000;

/** How many of the smallest round trips are kept to estimate their floor (none before as many answers). */
export const SMALLEST_KEPT = 16;
/** Clock resolution (Date.now() is in whole ms) and timer slack. */
export const SAFETY_MS = 2;

/** The shrink: how much of the SLOT_HOLD_MS a slot may skip, from the smallest round trips seen. */
export type ShrinkRule = (smallest: readonly number[], seen: number) => number;

export const floorEstimate: ShrinkRule = (smallest) => {
	if (smallest.length < SMALLEST_KEPT) return 0;
	const least = smallest[0];
	return Math.max(0, least - (smallest[SMALLEST_KEPT - 1] - least) - SAFETY_MS);
};

/** The round trips of one key's requests in this process: the smallest few, and how many. */
export class RoundTrips {
	private readonly smallest: number[] = [];
	private seen = 0;

	constructor(private readonly shrink: ShrinkRule = floorEstimate) {}

	record(ms: number): void {
		this.seen++;
		const list = this.smallest;
		if (list.length === SMALLEST_KEPT && ms >= list[SMALLEST_KEPT - 1]) return;
		let at = list.length;
		while (at > 0 && list[at - 1] > ms) at--;
		list.splice(at, 0, ms);
		if (list.length > SMALLEST_KEPT) list.pop();
	}

	/** How much of SLOT_HOLD_MS a slot may skip after an answer (0 until SMALLEST_KEPT answers). */
	shrinkMs(): number {
		return Math.min(SLOT_HOLD_MS, Math.max(0, this.shrink(this.smallest, this.seen)));
	}

	/** Whether enough answers were seen for shrinkMs to be more than a placeholder 0. */
	get warm(): boolean {
		return this.smallest.length >= SMALLEST_KEPT;
	}
}
