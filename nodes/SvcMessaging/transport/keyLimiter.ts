import Bottleneck from '../platform/bottleneck';
import { sleep } from 'n8n-workflow';

import { liftPauseWhenDue, localPause, stuckPauseCheck, type PauseStore } from './keyPause';
import { LaneTurns } from './lanes';
import { limiterSettings } from './rateReading';
import { ReadingProbe } from './readingProbe';
import { onTheGrid, StartGrid } from './startGrid';
import { refused, slotFaults, type KeyLimiter, type LimiterOptions, type OwnedLimiter, type Waiter } from './limiterTypes';
import type { PlanLimits } from './service';
import { RoundTrips, SLOT_HOLD_MS } from './roundTrips';
import { applySettings } from './sharedLimit';

export { slotFaults, type KeyLimiter, type LimiterOptions, type OwnedLimiter } from './limiterTypes';

const SLOWDOWN_FACTOR = 1.25;
const MAX_SLOWDOWN = 2;
const RECOVERY_PER_SUCCESS = 0.01;
/**
 * How often a process on a shared limit publishes its shrink and reads the key's least: a slot may
 * be taken next by another process, whose way in may be shorter (sharedLimit.ts sharedShrink).
 */
const SHARE_EVERY_MS = 1_000;

/**
 * Bottleneck runs one *slot* per request: a job that starts the request, waits for its answer and
 * then holds its place (roundTrips.ts: 1,000 ms less what of the round trip certainly came after the
 * request's arrival). `maxConcurrent` is the plan's N, so N slots at most are taken, and two requests
 * of one slot arrive at the service ≥ 1,000 ms apart: the strictest reading of "N requests per
 * second" (never N + 1 in any 1,000 ms) holds by construction, however the timers ran (a late timer,
 * a busy event loop, several processes). Starts are spaced (`minTime`), so a burst is spread over
 * the second. That is the strict reading (rateReading.ts); the spaced one holds no slot and only
 * times the starts (in one process on a start grid, startGrid.ts; with a shared limit 1000/N ms
 * apart), until a 429 teaches it the strict one (`penalize`). A 429's
 * pause (reservoir 0, and `pausedUntil` for slots already timed) and slowdown (a longer minTime)
 * apply to every slot not yet started.
 *
 * With a shared limit the same Bottleneck is clustered on Redis: the N slots, spacing, pause and
 * slowdown then hold for every process on the key together, and a slot is leased (slotLease.ts) so
 * that a process that died gives its slots back in seconds. Should Redis fail, the requests still
 * waiting fail unsent (never sent unpaced) and the next use connects anew.
 */
export function createLimiter(limits: PlanLimits, options: LimiterOptions = {}): OwnedLimiter {
	const { cluster, reading = 'strict' } = options;
	let strict = reading === 'strict' || !!options.learnedStrict;
	let slowdown = 1;
	// In one process, Learn tells the readings apart by a probe before it leaves the strict one.
	const probe = !cluster && !strict && reading === 'learn' ? new ReadingProbe(limits.requestsPerSecond, () => SLOT_HOLD_MS - trips.shrinkMs(), (verdict) => {
		if (verdict === 'strict') return void (strict || learnStrict());
		const edge = probe!.edgeBefore(Date.now());
		grid!.alignAt(edge, probe!.placesTaken(edge));
		applySettings(bottleneck, { minTime: minTime() }).catch(() => undefined);
	}) : undefined;
	// The spaced reading's start times in this process (with a shared limit, Bottleneck's spacing);
	// until Learn's verdict, the probe's grid, whose bursts are denser.
	const settings = () => limiterSettings(limits, strict, !cluster, probe?.deciding);
	const minTime = () => settings().minTime * slowdown;
	const bottleneck = cluster?.bottleneck ?? new Bottleneck(settings());
	const grid = cluster ? undefined : new StartGrid(limits.requestsPerSecond);
	let alignedAt: number | undefined;
	const pause: PauseStore = cluster ?? localPause();
	const trips = new RoundTrips(options.shrink);
	// With a shared limit, the least shrink of every process on the key (0 until this process learns it).
	let clusterShrink = 0;
	let lastShare = 0;
	const shareShrink = async () => {
		lastShare = Date.now();
		clusterShrink = await cluster!.sharedShrink(trips.shrinkMs());
	};
	// The spaced reading holds no slot after its answer: its spacing alone keeps N starts a second.
	const holdMs = () => (strict ? SLOT_HOLD_MS - (cluster ? Math.min(trips.shrinkMs(), clusterShrink) : trips.shrinkMs()) : 0);
	// From the spaced reading to the strict one, for good; 429s of requests started before are answered by it.
	let strictSince: number | undefined;
	const becomeStrict = async () => {
		const spaced = !strict && !probe?.deciding;
		strict = true;
		// Spaced starts held no slot: none more until those answered by now are a hold behind (the others hold theirs).
		if (spaced) pausedUntil = Math.max(pausedUntil, Date.now() + holdMs());
		strictSince ??= Date.now();
		await applySettings(bottleneck, { ...settings(), minTime: minTime() });
	};
	// The one switch a 429 teaches (a probe's or any other), and what the key learned.
	let switched: Promise<void> | undefined;
	const learnStrict = () => {
		if (switched) return switched;
		options.onLearnedStrict?.();
		return (switched = becomeStrict());
	};
	let lastReadingCheck = Date.now();
	// The end of this process's latest pause, and the last start the spacing was kept from.
	let pausedUntil = 0;
	let gate = 0;
	// Shared slots are leases (slotLease.ts), each job under an id of its own.
	let jobs = 0;
	const lanes = new LaneTurns<Waiter>();
	let failure: Error | undefined;
	// Slots scheduled and not over, and pauses under way: while any, the limiter is busy.
	let busy = 0;
	let idleFrom = Date.now();
	let successor: (() => Promise<KeyLimiter>) | undefined;
	const begin = () => void busy++;
	const end = () => void (--busy === 0 && (idleFrom = Date.now()));
	const take = () => lanes.take();
	const checkForStuckPause = stuckPauseCheck(bottleneck, pause, () => lanes.waiting > 0 && !failure);
	cluster?.onFailure((error) => {
		failure = error;
		for (let waiter = take(); waiter; waiter = take()) waiter.fail(error);
	});
	const slot = async (jobId: string, timedSpaced: boolean) => {
		if (slotFaults.next > 0 && slotFaults.next--) throw new Error('A fault injected into the limiter slot (test)');
		cluster?.lease.claim(jobId);
		// Learn before its verdict: the probe's turns. Spaced, or timed before a pause began (then waiting
		// it out): never closer than the spacing to the last start, though Bottleneck's timers fire together.
		// A lone request (nothing else waits on the key: `alone`) goes at once where the strict reading allows it.
		const [alone, turn] = [lanes.waiting <= 1, probe?.gates(Date.now()) ? await probe.turn(lanes.waiting <= 1) : undefined];
		if (!turn && !strict && grid) await onTheGrid(grid, pausedUntil, alone);
		else if ((!turn && !strict) || pausedUntil > Date.now()) {
			gate = Math.max(gate + minTime(), pausedUntil, Date.now());
			if (gate > Date.now()) await sleep(gate - Date.now());
		}
		// A 429 answered while it waited: its pause holds this start too (the service asked for it).
		while (pausedUntil > Date.now()) await sleep(pausedUntil - Date.now());
		// Timed under the spaced reading (up to 2N at once), it starts nothing if the key turned strict
		// meanwhile: another slot, timed under the strict reading, takes the request instead.
		if (timedSpaced && strict) {
			cluster?.lease.ended();
			return addSlot();
		}
		const waiter = take();
		if (!waiter) {
			if (turn?.probe) probe!.answered(undefined);
			return cluster?.lease.ended();
		}
		try {
			const startedAt = Date.now();
			grid?.started(startedAt);
			waiter.probe = turn?.probe;
			waiter.start();
			await waiter.done;
			trips.record(Date.now() - startedAt);
			if (turn) probe!.ledger.answer(turn.start);
			if (cluster && trips.warm && Date.now() - lastShare >= SHARE_EVERY_MS) shareShrink().catch(() => undefined);
			// Another process on the key may have learned the strict reading.
			if (cluster && !strict && reading === 'learn' && Date.now() - lastReadingCheck >= SHARE_EVERY_MS) {
				lastReadingCheck = Date.now();
				cluster.learnedStrict().then(async (learned) => learned && !strict && (await becomeStrict()), () => undefined);
			}
			const hold = holdMs();
			if (hold > 0) await sleep(hold);
		} finally {
			cluster?.lease.ended();
		}
	};

	// Every request adds one slot; each slot that starts runs the next lane's oldest request.
	const addSlot = () => {
		begin();
		const jobId = `slot-${++jobs}`;
		bottleneck
			.schedule(cluster ? cluster.lease.options(jobId) : {}, slot, jobId, !strict)
			.catch(
				// In a cluster any failure here is Redis's: the request was not sent.
				(error: Error) => take()?.fail(cluster ? cluster.fail(error) : error),
			)
			.finally(end);
	};

	return {
		limits,
		async schedule<T>(task: () => Promise<T>, lane = '') {
			if (successor) return await (await successor()).schedule(task, lane);
			if (failure) throw failure;
			let answered = () => {};
			const waiter = { done: new Promise<void>((resolve) => (answered = resolve)) } as Waiter;
			const started = new Promise<void>((start, fail) => lanes.add(lane, Object.assign(waiter, { start, fail })));
			addSlot();
			if (cluster) void checkForStuckPause();
			await started;
			let result: { answer: T } | undefined;
			try {
				result = { answer: await task() };
				return result.answer;
			} finally {
				if (waiter.probe) probe!.answered(result && refused(result.answer));
				answered();
			}
		},
		penalize(waitMs: number, startedAt?: number) {
			if (successor) {
				void successor().then((next) => next.penalize(waitMs, startedAt), () => undefined);
				return waitMs;
			}
			// A refused probe already told the probe what it knows: it waits alone.
			if (probe?.claimRefusal()) return waitMs;
			// The probe found the service's second: a 429 of a cycle's last starts is a request late on its
			// way (a busy event loop), which waits alone, unless another came shortly before (then the probe
			// misjudged); any other 429 moves the grid onto the edge it shows (below).
			const late = probe?.verdict === 'spaced' && startedAt !== undefined && grid!.nearGap(startedAt);
			if (!strict && late && !probe!.refusedAgain(Date.now())) return waitMs;
			if (!strict && grid && startedAt !== undefined && !probe?.deciding) {
				// Started before the grid last moved: the grid is already answered, the request waits alone.
				if (alignedAt !== undefined && startedAt < alignedAt) return waitMs;
				// The first 429 (every one, when the credential fixes the spaced reading): the service's second.
				if (alignedAt === undefined || reading === 'spaced') {
					grid.alignTo(startedAt, (alignedAt = Date.now()));
					return waitMs;
				}
			}
			// On its way before the switch to the strict reading: that switch already answers it.
			if (strictSince !== undefined && startedAt !== undefined && startedAt < strictSince) return waitMs;
			// A 429 the spaced rate drew: the service counts strictly, and the switch is the answer to it.
			const learning = !strict && reading === 'learn';
			// becomeStrict sets `strict` before its first await: strict from here, its settings follow.
			if (learning) void learnStrict();
			else slowdown = Math.min(MAX_SLOWDOWN, slowdown * SLOWDOWN_FACTOR);
			probe?.decide('strict');
			// An empty reservoir holds every slot not yet timed; those already timed wait in `slot`. When
			// it is lifted they pass at the (slower) minTime spacing.
			pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
			begin();
			void (async () => {
				await pause.extendPause(waitMs);
				await switched;
				await applySettings(bottleneck, { reservoir: 0, minTime: minTime() });
				await sleep(waitMs);
				await liftPauseWhenDue(bottleneck, pause);
			})()
				.catch(() => undefined)
				.finally(end);
			return 0;
		},
		pausedForMs: () => Math.max(0, pausedUntil - Date.now()),
		recover() {
			if (successor || slowdown === 1) return;
			slowdown = Math.max(1, slowdown - RECOVERY_PER_SUCCESS);
			applySettings(bottleneck, { minTime: minTime() }).catch(() => undefined);
		},
		holdStrict() {
			if (successor) return void successor().then((next) => (next as OwnedLimiter).holdStrict(), () => undefined);
			if (strict) return;
			void becomeStrict();
			// Before its verdict the probe settles the starts it made; nothing is learned of the service.
			probe?.decide('strict');
		},
		idleSince: () => (busy === 0 ? idleFrom : undefined),
		retire(next) {
			successor = next;
		},
	};
}
