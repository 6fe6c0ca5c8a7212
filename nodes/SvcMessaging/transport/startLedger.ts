/**
 * The starts Learn made before its verdict (readingProbe.ts), their answers, and what those tell:
 * how far the service is (the way in) and how much two arrivals may differ beyond their starts.
 */
import { CYCLE_MS } from './startGrid';

/** Timer slack and the clock's whole milliseconds. */
export const SAFETY_MS = 5;
/** The round trips the spread and the way in are read from: the latest ones. */
const RECENT_TRIPS = 32;

/** A start made (Date.now()), and when its answer came. */
export interface Start {
	at: number;
	answeredAt?: number;
}

export class StartLedger {
	/** Ascending by `at`. */
	private readonly starts: Start[] = [];
	private readonly trips: number[] = [];
	answers = 0;

	/** `holdMs`: how long after its answer a start holds its place (the strict reading's slot hold). */
	constructor(
		private readonly n: number,
		private readonly holdMs: () => number,
	) {}

	started(at: number): Start {
		const { starts, n } = this;
		while (starts.length > 4 * n || (starts.length > n && starts[0].at < at - 10 * CYCLE_MS)) starts.shift();
		const start = { at };
		starts.push(start);
		return start;
	}

	/** The answer to `start` came now. */
	answer(start: Start): void {
		start.answeredAt = Date.now();
		this.answers++;
		this.trips.push(start.answeredAt - start.at);
		if (this.trips.length > RECENT_TRIPS) this.trips.shift();
	}

	/** How much two arrivals may differ beyond their starts' difference (a way in varies less than a round trip). */
	spreadMs(): number {
		return Math.max(...this.trips) - Math.min(...this.trips) + SAFETY_MS;
	}

	/** The least way in: half the least round trip (a start arrives no earlier). */
	leastWayInMs(): number {
		return Math.min(...this.trips) / 2;
	}

	/** The way in, half a round trip (the middle of those seen). */
	wayInMs(): number {
		return (Math.min(...this.trips) + Math.max(...this.trips)) / 4;
	}

	/** Whether fewer than N starts hold their place now: unanswered, or answered less than the hold ago. */
	fits(now: number): boolean {
		const hold = this.holdMs();
		let holding = 0;
		for (const { answeredAt } of this.starts) if (answeredAt === undefined || now < answeredAt + hold) holding++;
		return holding < this.n;
	}

	/** The oldest of the last N starts, if N were made. */
	oldestOfLastN(): number | undefined {
		return this.starts.length >= this.n ? this.starts[this.starts.length - this.n].at : undefined;
	}

	lastStart(): number {
		return this.starts[this.starts.length - 1].at;
	}

	/**
	 * How many starts made may arrive in each second of the service from `edge` (start times) on, by
	 * seconds after it, when an arrival may be `margin` either side of its estimate: the start grid
	 * leaves as many places free.
	 */
	placesTaken(edge: number, margin: number): Map<number, number> {
		const taken = new Map<number, number>();
		for (const { at } of this.starts) {
			const first = Math.floor((at - margin - edge) / CYCLE_MS);
			const last = Math.floor((at + margin - edge) / CYCLE_MS);
			for (let second = Math.max(0, first); second <= last; second++) taken.set(second, (taken.get(second) ?? 0) + 1);
		}
		return taken;
	}
}
