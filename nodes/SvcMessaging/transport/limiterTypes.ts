import type { RateReading } from './rateReading';
import type { ShrinkRule } from './roundTrips';
import type { PlanLimits } from './service';
import type { ClusterStore } from './sharedLimit';

/**
 * One limiter per API key, shared by every node and execution in this n8n process (or, with a
 * shared limit, by every process on the key), so that concurrent workflows on the same key
 * together stay within the plan's request rate.
 */
export interface KeyLimiter {
	/**
	 * Runs `task` when the key's rate allows. `lane` names the caller (see lanes.ts): waiting requests
	 * of different lanes take turns, so concurrent executions on one key get an equal share.
	 */
	schedule<T>(task: () => Promise<T>, lane?: string): Promise<T>;
	/**
	 * A 429 arrived for a request started at `startedAt` (Date.now() ms): hold every request on this
	 * key for `waitMs` and go on a little slower, or (spaced reading) move the start grid. Returns how
	 * long the refused request itself waits before it goes again (0: the key's pause covers it).
	 */
	penalize(waitMs: number, startedAt?: number): number;
	/** How long the key's pause after a 429 still lasts in this process (0: none). */
	pausedForMs(): number;
	/** A request succeeded: drift back toward the plan's rate. */
	recover(): void;
	readonly limits: PlanLimits;
}

/** What the registry (limiter.ts) needs to let an idle limiter go. */
export interface OwnedLimiter extends KeyLimiter {
	/** Since when nothing is queued, held or paused (Date.now() ms); undefined while busy. */
	idleSince(): number | undefined;
	/** Another credential reads the key's rate otherwise: the strict reading from now on, not learned of the service. */
	holdStrict(): void;
	/** From now on every call goes to `successor()`: this limiter runs nothing more. */
	retire(successor: () => Promise<KeyLimiter>): void;
}

export interface LimiterOptions {
	cluster?: ClusterStore;
	/** How much of a slot's hold a round trip may shrink (roundTrips.ts); tests pass other rules. */
	shrink?: ShrinkRule;
	/** The credential's reading of the rate (rateReading.ts); 'strict' when not given. */
	reading?: RateReading;
	/** Whether the key is already known to count strictly (a 429 seen before, here or in Redis). */
	learnedStrict?: boolean;
	/** Called when a 429 of the spaced rate teaches this limiter the strict reading. */
	onLearnedStrict?: () => void;
}

/** A request waiting in the key's limiter for its slot (keyLimiter.ts). */
export interface Waiter {
	start: () => void;
	fail: (error: Error) => void;
	/** settles when the request has its answer (or failed) */
	done: Promise<void>;
	/** whether the request is Learn's probe (readingProbe.ts) */
	probe?: boolean;
}

/** Whether a task's result is an answer 429 (request.ts's tasks return the full response). */
export const refused = (result: unknown) => (result as { statusCode?: unknown } | undefined)?.statusCode === 429;

/** Tests only: how many of the next slots fail before their request leaves (a fault inside the limiter). */
export const slotFaults = { next: 0 };
