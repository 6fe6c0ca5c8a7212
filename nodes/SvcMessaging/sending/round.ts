import type { IDataObject, IExecuteFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { reserveAgentMessages } from '../aiTool/agentCap';
import { mayHaveBeenProcessed } from '../transport/errors';
import { RedisUnavailable } from '../transport/redis';
import { connectKeyLimiter } from '../transport/request';
import { assertBalance } from './balance';
import { openSendLedger, type EarlierEntry, type LedgerEntry } from './ledger';
import type { ItemFailure } from './outcomes';
import { ledgerError, openLedger, unknownOutcome, unknownOutcomeError } from './recovery';

/** One message (or campaign) of a send, under its identity in the send ledger. */
export interface SendUnit {
	itemIndex: number;
	identity: string;
	/** Set by the round: what became of it (kept on the unit: a map of 100,000 units cost ~10 MB). */
	outcome?: UnitOutcome;
}

export type UnitOutcome = { ok: true; json: IDataObject } | { ok: false; failure: ItemFailure };

/** Records what the service answered for these units, as soon as it answered. */
export type Settle<U> = (results: Array<[unit: U, outcome: UnitOutcome]>) => Promise<void>;

export interface RoundOptions<U extends SendUnit> {
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
	/** posts the pending units (each once) and settles each as its answer arrives */
	post: (pending: U[], settle: Settle<U>) => Promise<void>;
}

/** What the operation makes of the outcomes; it throws when the run fails (see finishSend). */
export type Conclude<T> = (outcomes: UnitOutcome[]) => T;

/**
 * The send-once round, the only place that decides whether a message goes out:
 * balance (when asked) → ledger look-up → skip what an earlier try sent, refuse what it may have
 * sent → the agents' message cap → post → record each outcome as it arrives.
 *
 * A unit accepted before is reported again (`alreadySent: true`); one whose earlier outcome is
 * unknown (timeout, dropped connection, 5xx) is refused unless `resendUnknown`. `conclude` gets
 * each unit's outcome in the order of `units`; only when it returns (the run did not fail) is the
 * run marked finished in the ledger, so that an execution retry of a failed run finds its sends.
 */
export async function sendOnce<U extends SendUnit, T>(
	ctx: IExecuteFunctions,
	units: U[],
	options: RoundOptions<U>,
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
		for (const unit of failed) unit.outcome = { ok: false, failure: { itemIndex: unit.itemIndex, error: ledgerError(ctx, error, unit.itemIndex) } };
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
				unit.outcome = { ok: false, failure: { itemIndex: unit.itemIndex, error } };
			} else {
				pending.push(unit);
			}
		});
	}
	// As an AI tool: what this call sends counts against the execution's message cap (or is refused).
	const cap = apiKey ? await reserveAgentMessages(ctx, pending.length) : undefined;
	// Written before anything is posted: should the answers then not reach Redis, a retry finds these
	// messages "under way" and refuses them as unknown outcome instead of sending them again.
	const begun = await ledger.begin(pending.map((unit) => unit.identity)).then(
		() => true,
		(error: unknown) => {
			failUnsent(pending, error);
			cap?.release(pending.length);
			return false;
		},
	);
	if (begun) {
		await options.post(pending, async (results) => {
			const entries: Array<[string, LedgerEntry | undefined]> = [];
			for (const [unit, outcome] of results) {
				unit.outcome = outcome;
				if (outcome.ok) entries.push([unit.identity, { outcome: 'accepted', json: outcome.json }]);
				else if (mayHaveBeenProcessed(outcome.failure.error)) entries.push([unit.identity, unknownOutcome(outcome.failure)]);
				else {
					entries.push([unit.identity, undefined]);
					cap?.release();
				}
			}
			await ledger.record(entries);
		});
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
