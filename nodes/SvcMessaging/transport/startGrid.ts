/**
 * The spaced reading's start times in one process (keyLimiter.ts): N starts in each cycle of 1,000 ms,
 * spread over its first 1000 − GAP_MS ms, then GAP_MS ms with none. A token bucket sees N a second. A
 * service that counts per calendar second refuses an N + 1st arrival only near the edge of its
 * second (the arrivals jitter); `alignTo` then moves the gap onto that edge, so that no jitter smaller
 * than the gap's half less the estimate's error carries a request across it.
 */
import { sleep } from 'n8n-workflow';

export const GAP_MS = 300;
export const CYCLE_MS = 1_000;
/** `value` mod `by`, in [0, by) for negative values too. */
export const modulo = (value: number, by: number) => ((value % by) + by) % by;
/** How late a start at the end of a cycle may reach the service (a busy event loop, a GC). */
const LATE_START_MS = 150;
/** alignAt: the part of the gap before a cycle's first start (the rest is left for late arrivals). */
export const ALIGN_LEAD_MS = GAP_MS / 4;

export class StartGrid {
	private phase: number | undefined;
	/** the next slot: cycle × n + its place in the cycle */
	private next = 0;
	/** places of a cycle already taken by starts made before the grid (alignAt), by cycle */
	private taken = new Map<number, number>();
	/** the last N starts of the key in this process (whatever timed them: the probe's turns too), oldest first */
	private readonly recent: number[] = [];

	/** N starts in the first `busyMs` of each `cycleMs` (other than the spaced reading's: readingProbe.ts). */
	constructor(
		private readonly n: number,
		private readonly cycleMs = CYCLE_MS,
		private readonly busyMs = CYCLE_MS - GAP_MS,
	) {}

	get spacingMs(): number {
		return this.busyMs / this.n;
	}

	private slotTime(slot: number): number {
		return this.phase! + Math.floor(slot / this.n) * this.cycleMs + (slot % this.n) * this.spacingMs;
	}

	/** The first free slot at or after `now` (Date.now() ms), taken. */
	take(now: number): number {
		if (this.phase === undefined) this.phase = now;
		if (this.slotTime(this.next) < now) {
			const cycle = Math.floor((now - this.phase) / this.cycleMs);
			const place = Math.ceil((now - this.phase - cycle * this.cycleMs) / this.spacingMs);
			this.next = Math.max(this.next, place >= this.n ? (cycle + 1) * this.n : cycle * this.n + place);
		}
		for (;;) {
			const cycle = Math.floor(this.next / this.n);
			const taken = this.taken.get(cycle) ?? 0;
			if (this.next % this.n >= taken) break;
			this.next = taken >= this.n ? (cycle + 1) * this.n : cycle * this.n + taken;
		}
		return this.slotTime(this.next++);
	}

	/**
	 * The service's second begins at `edge` (in start times: a start then arrives no earlier than it
	 * begins): a cycle's first start ALIGN_LEAD_MS after it, so the gap leaves its last ones the rest
	 * of the gap to arrive late (a busy event loop only delays), and `taken` (by seconds after `edge`)
	 * says how many places of each second starts made before already hold.
	 */
	alignAt(edge: number, taken: Map<number, number>): void {
		this.phase = edge + ALIGN_LEAD_MS;
		this.next = 0;
		this.taken = taken;
	}

	/** A request of the key started at `at` (keyLimiter.ts records every start). */
	started(at: number): void {
		this.recent.push(at);
		if (this.recent.length > this.n) this.recent.shift();
	}

	/**
	 * Whether a start now may go at once instead of at its slot: fewer than N starts in the last
	 * second and what a late arrival adds. Its arrival's second then holds N at most: another second
	 * than its slot's only when it is the one before (now in the gap, before the edge), whose starts
	 * all fall in that window; its slot's otherwise, where it holds that slot's place (`take`).
	 */
	quiet(now: number): boolean {
		return this.recent.length < this.n || this.recent[0] <= now - CYCLE_MS - LATE_START_MS;
	}

	/** Whether a start due at `at` (a slot's time), made at `now`, is still in its cycle's busy part. */
	inBusyPart(at: number, now: number): boolean {
		return this.placeInCycle(at) + (now - at) < this.busyMs;
	}

	/** How far into its cycle a time `at` falls (0 before the grid's first slot). */
	private placeInCycle(at: number): number {
		return this.phase === undefined ? 0 : modulo(at - this.phase, this.cycleMs);
	}

	/**
	 * Whether a start at `at` was among the last of its cycle (or in the gap): a 429 of it came late on
	 * its way (a busy event loop) across an edge the gap sits on, rather than from a misplaced gap.
	 */
	nearGap(at: number): boolean {
		return this.phase !== undefined && this.placeInCycle(at) >= this.busyMs - LATE_START_MS;
	}

	/**
	 * A request started at `startedAt` was refused (429): the service's second ends about half a
	 * spacing after it arrived, so, in start times, half a spacing after `startedAt` (its way in is the
	 * next requests' too). The gap is centred there, and the next start is the first of a cycle whose
	 * second (from the edge before it) begins after `now`: no start made before shares its second.
	 */
	alignTo(startedAt: number, now: number): void {
		const edge = startedAt + this.spacingMs / 2;
		this.phase = edge + GAP_MS / 2;
		this.next = Math.max(0, Math.ceil((now + GAP_MS / 2 - this.phase) / CYCLE_MS)) * this.n;
		this.taken = new Map();
	}
}

/** Late wake-ups a start tries another slot for before it goes anyway. */
const LATE_TRIES = 3;

/**
 * Waits for a slot of `grid` (none before `notBefore`). A timer that fired late (a busy event loop
 * fires many at once) still starts in its cycle's busy part, whose second holds its place; one that
 * would start in the gap takes a later slot instead: it could arrive in the next second, N + 1 there.
 */
export async function onTheGrid(grid: StartGrid, notBefore: number, alone = false): Promise<void> {
	let at = grid.take(Math.max(Date.now(), notBefore));
	// A lone request (one-SMS executions one after another: an OTP flow) keeps its slot's place and
	// goes now: a wait for a slot (up to the gap, 300 ms) was half of such an execution's time.
	if (alone && notBefore <= Date.now() && grid.quiet(Date.now())) return;
	for (let tries = 0; ; tries++) {
		if (at > Date.now()) await sleep(at - Date.now());
		if (grid.inBusyPart(at, Date.now()) || tries === LATE_TRIES) return;
		at = grid.take(Date.now());
	}
}
