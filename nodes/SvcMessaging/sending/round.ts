import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { reserveAgentMessages } from '../aiTool/agentCap';
import { mayHaveBeenProcessed } from '../transport/errors';
import { RedisUnavailable } from '../transport/redis';
import { connectKeyLimiter } from '../transport/request';
import { assertBalance } from './balance';
import { openSendLedger, type EarlierEntry, type LedgerEntry } from './ledger';
import type { ItemFailure, Outcome } from './outcomes';
import { ledgerError, openLedger, unknownOutcome, unknownOutcomeError } from './recovery';
import { postInWindow, redisLost } from './window';

/** One message (or campaign) of a send, under its identity in the send ledger. */
export interface SendUnit {
	itemIndex: number;
	identity: string;
	/** Set by the round: what became of it (kept on the unit: a map of 100,000 units cost ~10 MB). */
	outcome?: UnitOutcome;
}

/** (sending/outcomes.ts's Outcome, under the round's name) */
export type UnitOutcome = Outcome;

/** What the service answered for each unit of one post (one message, or a Send Bulk call's recipients). */
export type Posted<U> = Array<[unit: U, outcome: UnitOutcome]>;

export interface RoundOptions<U extends SendUnit, W> {
	/**
	 * `apiKey`: the API key's ledger (in Redis too when the limit is shared), the key's limiter and
	 * the agents' message cap. `account`: campaigns, whose ledger stays in this process.
	 */
	kind: 'apiKey' | 'account';
	/** "Check Balance Before Sending": the estimate, checked before anything else */
	creditsNeeded?: number;
	/** whether a unit an earlier try may have sent is sent again ("Resend Messages With Unknown Outcome") */
	resendUnknown: boolean;
	/** report a unit accepted before with its earlier output as it is, without `alreadySent: true` */
	repeatedAsIs?: boolean;
	/** the refusal of a unit an earlier try may have sent (default: unknownOutcomeError) */
	refuseUnknown?: (earlier: EarlierEntry & { outcome: 'unknown' }, unit: U) => NodeApiError | NodeOperationError;
	/**
	 * The run is not finished when its messages are posted (Send and Wait: it waits for them first);
	 * the operation calls finishRun when it is.
	 */
	finishesLater?: boolean;
	/** how many posts are under way at once (sending/window.ts) */
	window: number;
	/** the pending units as posts: one each, or Send Bulk's calls of many */
	postsOf: (pending: U[]) => W[];
	unitsOf: (post: W) => U[];
	/** posts once and answers each unit's outcome (a failure is an outcome, not a throw) */
	post: (post: W) => Promise<Posted<U>>;
	/** the first failure stops the send and fails the node (campaigns without Continue On Fail) */
	stopOnFailure?: boolean;
}

/** What the operation makes of the outcomes; it throws when the run fails (see finishSend). */
export type Conclude<T> = (outcomes: UnitOutcome[]) => T;

/**
 * The send-once round, the only place that decides whether a message goes out:
 * balance (when asked) → ledger look-up → skip what an earlier try sent, refuse what it may have
 * sent → the agents' message cap → per post: "under way" in the ledger, post, record its outcomes.
 *
 * A unit accepted before is reported again (`alreadySent: true`); one whose earlier outcome is
 * unknown (timeout, dropped connection, 5xx) is refused unless `resendUnknown`. `conclude` gets
 * each unit's outcome in the order of `units` (the operation shapes its outputs from them; it is a
 * function rather than a return value because the run is marked finished in the ledger only when
 * it returns: a run that fails must stay open, so that an execution retry finds its sends).
 */
export async function sendOnce<U extends SendUnit, W, T>(
	ctx: IExecuteFunctions,
	units: U[],
	options: RoundOptions<U, W>,
	conclude: Conclude<T>,
): Promise<T> {
	if (options.creditsNeeded !== undefined) await assertBalance(ctx, options.creditsNeeded);
	const apiKey = options.kind === 'apiKey';
	if (apiKey) await connectKeyLimiter.call(ctx);
	const ledger = apiKey ? await openLedger(ctx) : await openSendLedger(ctx);
	for (const unit of units) unit.outcome = undefined;
	// Redis (the shared ledger) failed: these units fail unsent with its error.
	const failUnsent = (failed: U[], error: unknown) => {
		if (!(error instanceof RedisUnavailable)) throw new NodeOperationError(ctx.getNode(), error as Error);
		for (const unit of failed) unit.outcome = { ok: false, itemIndex: unit.itemIndex, error: ledgerError(ctx, error, unit.itemIndex) };
	};
	// A run that cannot repeat an earlier one posts every unit (no copy of a 100,000-unit list).
	let pending = units;
	if (ledger.consult) {
		const known = await ledger.lookup(units.map((u) => u.identity)).catch((error: unknown) => {
			failUnsent(units, error);
			return [];
		});
		pending = [];
		units.forEach((unit, n) => {
			const earlier = known[n];
			if (unit.outcome) return;
			if (earlier?.outcome === 'accepted') {
				const json = options.repeatedAsIs ? earlier.json : { ...earlier.json, alreadySent: true, sentIn: { ...earlier.sentIn } };
				unit.outcome = { ok: true, json };
			} else if (earlier?.outcome === 'unknown' && !options.resendUnknown) {
				const error = options.refuseUnknown?.(earlier, unit) ?? unknownOutcomeError(ctx, earlier, unit.itemIndex);
				unit.outcome = { ok: false, itemIndex: unit.itemIndex, error };
			} else {
				pending.push(unit);
			}
		});
	}
	// As an AI tool: what this call sends counts against the execution's message cap (or is refused).
	const cap = apiKey ? await reserveAgentMessages(ctx, pending.length) : undefined;
	const record = async (posted: Posted<U>) => {
		const entries: Array<[string, LedgerEntry | undefined]> = [];
		for (const [unit, outcome] of posted) {
			unit.outcome = outcome;
			if (outcome.ok) entries.push([unit.identity, { outcome: 'accepted', json: outcome.json }]);
			else if (mayHaveBeenProcessed(outcome.error)) entries.push([unit.identity, unknownOutcome(outcome)]);
			else {
				entries.push([unit.identity, undefined]);
				cap?.release();
			}
		}
		await ledger.record(entries);
	};
	const step = async (post: W): Promise<ItemFailure | undefined> => {
		const postUnits = options.unitsOf(post);
		// Written just before this post (not for the whole list up front): should its answers then
		// not reach Redis, a retry finds these messages "under way" and refuses them as unknown
		// outcome instead of sending them again; messages never started are never marked.
		try {
			await ledger.begin(postUnits.map((unit) => unit.identity));
		} catch (error) {
			failUnsent(postUnits, error);
			cap?.release(postUnits.length);
			return postUnits[0].outcome?.ok === false ? postUnits[0].outcome : undefined;
		}
		const posted = await options.post(post);
		await record(posted);
		const failed = posted.find(([, outcome]) => !outcome.ok)?.[1];
		if (failed && !failed.ok && options.stopOnFailure) throw failed.error;
		for (const [, outcome] of posted) {
			const lost = redisLost(outcome);
			if (lost) return lost;
		}
		return undefined;
	};
	const { notStarted, lost } = await postInWindow(options.postsOf(pending), options.window, step);
	// After a Redis loss nothing more is posted: what was not started fails together, unsent (never
	// marked under way, so nothing to record).
	for (const post of notStarted) {
		const rest = options.unitsOf(post);
		for (const unit of rest) unit.outcome = { ok: false, itemIndex: unit.itemIndex, error: lost!.error };
		cap?.release(rest.length);
	}
	const result = conclude(units.map((unit) => unit.outcome!));
	if (!options.finishesLater) await ledger.finish();
	return result;
}

/**
 * Marks this node run finished in the API key's send ledger, when its messages are (a run of
 * `finishesLater`). Should the ledger's Redis be out of reach the run stays open: a retry then
 * still finds its messages, the safe side.
 */
export async function finishRun(ctx: IExecuteFunctions): Promise<void> {
	try {
		await (await openLedger(ctx)).finish();
	} catch {
		// left open on purpose (see above)
	}
}
