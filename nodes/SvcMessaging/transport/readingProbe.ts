/**
 * How Learn tells, in one process, a service that counts per second (or by a token bucket) from
 * one that counts strictly (keyLimiter.ts), at the cost of two 429s at most.
 *
 * Until it knows, starts keep the strict reading: they sit on a start grid whose cycle is longer
 * than a second (N starts in 700 ms, then a gap), and each goes only while fewer than N before it
 * hold their place (keyLimiter.ts's slot hold: until a second after their answer, less what of the
 * round trip certainly came after their arrival), so no 1,000 ms at the service holds N + 1.
 * After a cycle's N starts, one request, a *probe*, may go in its gap, after all of them arrived:
 * it arrives within 1,000 ms of the first for certain, so a strict service refuses it, but after
 * the edge of the service's second that follows that first, so a service counting per second (or
 * a token bucket) accepts it. Accepted: the plan's rate on the start grid, its gap on that edge. Refused:
 * the edge is not where it was thought (the probe's second held N already), and the next probe
 * tests the new estimate; two refused, or none made within seconds of a refusal, the service counts
 * strictly.
 */
import { sleep } from 'n8n-workflow';

import { RATE_READING } from './service';
import { CYCLE_MS, modulo, StartGrid } from './startGrid';
import { SAFETY_MS, StartLedger, type Start } from './startLedger';

/** Answers before a probe (the round trips' spread and way in are read from them). */
const ANSWERS_FIRST = 8;
/**
 * The grid until the verdict: N starts in 700 ms of each cycle of a second, a round trip's usual
 * spread and timers' lateness; the gap leaves the probe room to go after its predecessors arrived.
 */
const DECIDING_CYCLE_MS = CYCLE_MS + 150;
const DECIDING_BUSY_MS = 700;
/**
 * Refused probes before the service is taken to count strictly, and how long the next may take after
 * a refusal. After an accepted one, a 429 (a request late on its way) is waited out alone, unless
 * another came within REFUSALS_APART_MS: a busy event loop can delay a probe's way out past its
 * predecessors' second, and a strict service then accepts it.
 */
const MAX_REFUSALS = 2;
const NEXT_PROBE_WITHIN_MS = 4 * CYCLE_MS;
const REFUSALS_APART_MS = 10 * CYCLE_MS;

export type Verdict = 'spaced' | 'strict';

/** The probe under way: when it starts, the first of its N predecessors, and the probe before it. */
interface Probe {
	at: number;
	oldest: number;
	before: number;
}

export class ReadingProbe {
	/** The starts made until the verdict (and after a strict one, while it settles), and their answers. */
	readonly ledger: StartLedger;
	private readonly grid: StartGrid;
	private probe: Probe | undefined;
	private lastProbeAt = -Infinity;
	private refusals = 0;
	private lastLateRefusal = -Infinity;
	private refusedAt = Infinity;
	private unclaimedRefusals = 0;
	/** Where the service's second begins (arrival times, ms past our whole second), and how unsure. */
	private edgePhase: number = RATE_READING.secondEdgeMs;
	private edgeError = 0;
	private settleUntil = 0;
	verdict: Verdict | undefined;

	/** `holdMs`: how long after its answer a start holds its place (the strict reading's slot hold). */
	constructor(
		n: number,
		private readonly holdMs: () => number,
		private readonly onVerdict: (verdict: Verdict) => void,
	) {
		this.grid = new StartGrid(n, DECIDING_CYCLE_MS, DECIDING_BUSY_MS);
		this.ledger = new StartLedger(n, holdMs);
	}

	/** Whether the verdict is still out. */
	get deciding(): boolean {
		return this.verdict === undefined;
	}

	/**
	 * Whether starts wait for this probe's turns: until the verdict, and after a strict one until the
	 * starts made before it (which hold no slot) are out of every second a later one shares.
	 */
	gates(now: number): boolean {
		return this.deciding || (this.verdict === 'strict' && now < this.settleUntil);
	}

	/**
	 * Waits for this start's turn; whether it is the probe, or undefined if the key turned spaced meanwhile.
	 * `alone` (nothing else waits on the key): it goes now when fewer than N starts hold their place
	 * and no probe is due, keeping its grid place (one-SMS executions one after another never make a
	 * probe's N starts a second, and waited for a grid turn each, up to its gap).
	 */
	async turn(alone = false): Promise<{ probe: boolean; start: Start } | undefined> {
		if (alone && this.gates(Date.now()) && !this.probe && this.ledger.fits(Date.now())) {
			this.grid.take(Date.now());
			return { probe: false, start: this.ledger.started(Date.now()) };
		}
		for (let mayProbe = true; ; ) {
			if (!this.gates(Date.now())) return undefined;
			const probe = mayProbe ? this.nextProbe(Date.now()) : undefined;
			const at = probe?.at ?? this.grid.take(Date.now());
			// Never a turn again without a pause: the event loop goes on.
			await sleep(Math.max(1, at - Date.now()));
			if (this.verdict === 'spaced') return undefined;
			// Timers fire late and turns are taken again: what counts is what started before it, now.
			const now = Date.now();
			if (probe && this.probe === probe && this.stillDecisive(probe, now)) return { probe: true, start: this.ledger.started(now) };
			if (probe) {
				// Not a probe after all (what came before it is not where it must be): a start like the others.
				if (this.probe === probe) [this.probe, this.lastProbeAt] = [undefined, probe.before];
				mayProbe = false;
			} else if (this.ledger.fits(now)) return { probe: false, start: this.ledger.started(now) };
		}
	}

	/** A probe's turn at `now` or after, if one can go (reserved). */
	private nextProbe(now: number): Probe | undefined {
		if (this.deciding && now - this.refusedAt > NEXT_PROBE_WITHIN_MS) this.decide('strict');
		const oldest = this.ledger.oldestOfLastN();
		const at = this.probe || oldest === undefined ? undefined : this.probeTime(now, oldest, this.lastProbeAt);
		if (at === undefined) return undefined;
		this.probe = { at, oldest: oldest!, before: this.lastProbeAt };
		this.lastProbeAt = at;
		return this.probe;
	}

	/** Whether the probe, going now, still has N starts before it that make it one. */
	private stillDecisive(probe: Probe, now: number): boolean {
		const oldest = this.ledger.oldestOfLastN();
		if (oldest === undefined || this.probeTime(now, oldest, probe.before) !== now) return false;
		[probe.at, probe.oldest, this.lastProbeAt] = [now, oldest, now];
		return true;
	}

	/**
	 * When, at `earliest` or after, a probe can go whose N predecessors begin with `oldest`: after
	 * all of them arrived, within 1,000 ms of the first for certain, and after the edge of the
	 * service's second that follows that first.
	 */
	private probeTime(earliest: number, oldest: number, lastProbe: number): number | undefined {
		// Its N predecessors hold no refused probe (the service did not count it).
		if (!this.deciding || this.ledger.answers < ANSWERS_FIRST || lastProbe >= oldest) return undefined;
		const spread = this.ledger.spreadMs();
		const wayIn = this.ledger.wayInMs();
		const margin = spread / 2 + this.edgeError + SAFETY_MS;
		const after = oldest + wayIn + margin;
		const edge = after + modulo(this.edgePhase - after, CYCLE_MS);
		const at = Math.ceil(Math.max(earliest, this.ledger.lastStart() + spread + SAFETY_MS, edge - wayIn + margin));
		return at <= oldest + CYCLE_MS - spread - SAFETY_MS ? at : undefined;
	}

	/**
	 * The probe's answer: refused (429), accepted (any other answer: the service counted it), or none
	 * (undefined: it tells nothing, another probe may go).
	 */
	answered(refused: boolean | undefined): void {
		const probe = this.probe;
		this.probe = undefined;
		if (!probe || this.verdict || refused === undefined) return;
		if (!refused) return this.decide('spaced');
		this.unclaimedRefusals++;
		this.refusedAt = Date.now();
		if (++this.refusals >= MAX_REFUSALS) return this.decide('strict');
		// The probe's second held N already: its edge lies after the probe's arrival less a second, before the oldest's.
		const spread = this.ledger.spreadMs();
		const from = probe.at + this.ledger.wayInMs() - spread / 2 - CYCLE_MS;
		const to = probe.oldest + this.ledger.wayInMs() + spread / 2;
		this.edgePhase = modulo((from + to) / 2, CYCLE_MS);
		this.edgeError = (to - from) / 2;
	}

	/** A 429 after the verdict 'spaced': whether another came within REFUSALS_APART_MS before it. */
	refusedAgain(now: number): boolean {
		const again = now - this.lastLateRefusal < REFUSALS_APART_MS;
		this.lastLateRefusal = now;
		return again;
	}

	/** Whether a 429 reported now is a refused probe's: it already told its tale, and waits alone. */
	claimRefusal(): boolean {
		if (this.unclaimedRefusals === 0) return false;
		this.unclaimedRefusals--;
		return true;
	}

	/** Also taken elsewhere (a 429 of a start that kept the strict reading). */
	decide(verdict: Verdict): void {
		if (this.verdict) return;
		this.verdict = verdict;
		this.probe = undefined;
		if (verdict === 'strict') this.settleUntil = Date.now() + this.holdMs();
		this.onVerdict(verdict);
	}

	/** Where the current second of the service begins, in start times (at or before `now`). */
	edgeBefore(now: number): number {
		const edge = this.edgePhase - this.ledger.leastWayInMs();
		return now - modulo(now - edge, CYCLE_MS);
	}

	/** The places of the service's seconds from `edge` on that starts made may already hold (startLedger.ts). */
	placesTaken(edge: number): Map<number, number> {
		return this.ledger.placesTaken(edge, this.ledger.spreadMs() / 2 + this.edgeError + SAFETY_MS);
	}
}
