import type { IDataObject, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mayHaveBeenProcessed } from '../transport/errors';
import { claimKeys, peekKeys } from './keys/idempotency';
import type { EarlierEntry, LedgerEntry } from './ledger/ledger';
import type { ItemFailure, Outcome } from './outcomes';
import { alreadySentNote, applyQuietHours, assertBudget, budgetNote, dryRunNote, estimateCredits, skippedNote, type Scheduling, type SharedSendTime } from './policies/policies';
import { failedUnsent, unknownOutcome, unknownOutcomeError } from './recovery';
import type { SendRun } from './sendRun';
import { suppressedNote, suppressListed, suppressWithin, type NumbersOfUnit } from './policies/doNotSend';
import { chooseSenders } from './policies/senderByCountry';
import { underWay } from './underWay';
import { postInWindow, redisLost } from './window';

/** One message (or campaign) of a send, under its identity in the send ledger. */
export interface SendUnit {
	itemIndex: number;
	identity: string;
	/** Set by the round: what became of it (kept on the unit: a map of 100,000 units cost ~10 MB). */
	outcome?: UnitOutcome;
	/** Set by the round when Sending Hours defers it: its output fields, scheduledAt among them (posted with it) */
	deferred?: IDataObject;
	/** Set by the round for Sender ID "Automatic": the sender ID chosen for the number's country (posted with it) */
	sender?: string;
}

/** (sending/outcomes.ts's Outcome, under the round's name) */
export type UnitOutcome = Outcome;

/** What the service answered for each unit of one post (one message, or a Send Bulk call's recipients). */
export type Posted<U> = Array<[unit: U, outcome: UnitOutcome]>;

export interface RoundOptions<U extends SendUnit, W> {
	/** report a unit accepted before with its earlier output as it is, without `alreadySent: true` */
	repeatedAsIs?: boolean;
	/** the refusal of a unit an earlier try may have sent (default: unknownOutcomeError) */
	refuseUnknown?: (earlier: EarlierEntry & { outcome: 'unknown' }, unit: U) => NodeApiError | NodeOperationError;
	/** how many posts are under way at once (sending/window.ts) */
	window: number;
	/** the pending units as posts: one each, or Send Bulk's calls of many */
	postsOf: (pending: U[]) => W[];
	unitsOf: (post: W) => U[];
	/**
	 * posts once and answers each unit's outcome (a failure is an outcome, not a throw). `begin` marks
	 * the units under way in the ledger: it is handed to the request (transport/request.ts
	 * `beforeSend`), which calls it in the key limiter's slot, right before the request leaves.
	 */
	post: (post: W, begin: () => Promise<void>) => Promise<Posted<U>>;
	/** a unit's credits, for Max Credits and a dry run's total (undefined: only the service can count them) */
	creditsOf: (unit: U) => number | undefined;
	/** a dry run's output of a unit: what would be posted and its cost (encoding, segments, credits, sender, send time) */
	price: (unit: U) => IDataObject;
	/** Sending Hours: the unit's number (without it, as for campaigns, the hours do not apply) */
	recipientOf?: (unit: U) => string;
	/** the do-not-send list for a unit of many numbers (a campaign's manual numbers): the listed ones taken out */
	numbersOfUnit?: NumbersOfUnit<U>;
	/** Sending Hours of a unit with several recipients and one send time (a scheduled campaign; undefined: a draft) */
	recipientsOf?: (unit: U) => SharedSendTime | undefined;
	/** the unit's own scheduledAt, judged (and moved) instead of now */
	scheduledAtOf?: (unit: U) => string | undefined;
	/** whether the unit asked for Sender ID "Automatic (by Recipient's Country)" */
	automaticSender?: (unit: U) => boolean;
	/** how the operation takes a deferred unit (default: posted with its scheduledAt) */
	scheduling?: Scheduling;
	/** what one unit is, in the dry run's hint (default "message") */
	noun?: string;
	/** the first failure stops the send and fails the node (campaigns without Continue On Fail) */
	stopOnFailure?: boolean;
}

/**
 * The send-once round, the only place that decides whether a message goes out: the user's
 * policies first (policies.ts: Sender ID Automatic, so that every output shows its sender → Do-Not-Send List → Sending Hours → Max Credits → Dry Run), then
 * ledger look-up → skip what an earlier try sent, refuse what it may have sent → Idempotency Key
 * (idempotency.ts: a key claimed before its message goes, a key used before answers its first
 * result) → the agents' message cap → per post: "under way" in the ledger, post, record its outcomes. (The balance, the
 * key's limiter and the ledger were opened with the run: sendRun.ts.)
 *
 * A unit accepted before is reported again (`alreadySent: true`); one whose earlier outcome is
 * unknown (timeout, dropped connection, 5xx) is refused unless `run.resendUnknown`. Answers each
 * unit's outcome in the order of `units`. The run is NOT marked finished here: the operation shapes
 * its outputs from the outcomes and calls `run.finish()` only when that did not fail (a run that
 * fails must stay open, so that an execution retry finds its sends; Send and Wait finishes after its
 * wait).
 */
export async function sendOnce<U extends SendUnit, W>(run: SendRun, units: U[], options: RoundOptions<U, W>): Promise<UnitOutcome[]> {
	const { ledger, node, policies } = run;
	for (const unit of units) {
		unit.outcome = undefined;
		// Only when set: a field added to each of 100,000 units costs memory of its own.
		if (unit.deferred) unit.deferred = undefined;
		if (unit.sender) unit.sender = undefined;
	}
	const failUnsent = (failed: U[], error: unknown) => failedUnsent(node, failed, error);
	// The policies come first: a number suppressed, a message skipped, a budget refused or a dry run
	// posts nothing and marks nothing.
	const { quietHours, doNotSend } = policies;
	const { recipientOf, scheduledAtOf, scheduling = 'scheduledAt' } = options;
	// Sender ID Automatic first: a suppressed or skipped item shows the sender it would have had.
	if (options.automaticSender && recipientOf) await chooseSenders(run, units, recipientOf, options.automaticSender);
	const price = (unit: U) => (unit.sender ? { ...options.price(unit), senderId: unit.sender } : options.price(unit));
	let decided = 0;
	if (doNotSend && (recipientOf || options.numbersOfUnit)) {
		try {
			const suppressed = recipientOf
				? await suppressListed(doNotSend, units, recipientOf, price)
				: await suppressWithin(doNotSend, units, options.numbersOfUnit!, price);
			if (suppressed) run.hint(suppressedNote(suppressed));
			decided += suppressed;
		} catch (error) {
			// Fails closed: a list that cannot be read lets nothing out.
			failUnsent(units.filter((unit) => !unit.outcome), error);
			decided = units.length;
		}
	}
	const { recipientsOf } = options;
	let hours: ReturnType<typeof applyQuietHours> | undefined;
	if (quietHours && (recipientOf || recipientsOf)) {
		hours = applyQuietHours(node, quietHours, units, { recipientOf, recipientsOf, scheduledAtOf, price, scheduling });
		decided += hours.decided;
	}
	// A run that cannot repeat an earlier one posts every unit (no copy of a 100,000-unit list).
	let pending = decided ? units.filter((unit) => !unit.outcome) : units;
	const budget = policies.maxCredits;
	const estimate = budget !== undefined || policies.dryRun ? estimateCredits(pending, options.creditsOf) : undefined;
	assertBudget(node, policies, estimate);
	if (policies.dryRun) {
		// Suppressed or skipped by Sending Hours: marked too (nothing would have been sent either way).
		if (decided) for (const unit of units) if (unit.outcome?.ok) unit.outcome.json.dryRun = true;
		for (const unit of pending) {
			const when = unit.deferred ? { ...unit.deferred, ...(unit.deferred.scheduledAt ? { sendAt: unit.deferred.scheduledAt } : {}) } : undefined;
			unit.outcome = { ok: true, json: { ...price(unit), ...when, dryRun: true } };
		}
		// Idempotency Key: whether each key is used already; nothing claimed.
		if (run.keys) await peekKeys(run.keys, pending).catch((error: unknown) => failUnsent(pending, error));
		run.hint(dryRunNote(pending.length, estimate, budget, options.noun, hours));
		return units.map((unit) => unit.outcome!);
	}
	if (hours?.skipped) run.hint(skippedNote(hours.skipped, options.noun));
	if (ledger.consult) {
		const asked = pending;
		const known = await ledger.lookup(asked.map((u) => u.identity)).catch((error: unknown) => {
			failUnsent(asked, error);
			return [];
		});
		pending = [];
		asked.forEach((unit, n) => {
			const earlier = known[n];
			if (unit.outcome) return;
			if (earlier?.outcome === 'accepted') {
				const json = options.repeatedAsIs ? earlier.json : { alreadySent: true, ...earlier.json, sentIn: { ...earlier.sentIn } };
				unit.outcome = { ok: true, json };
			} else if (earlier?.outcome === 'unknown' && !run.resendUnknown) {
				const error = options.refuseUnknown?.(earlier, unit) ?? unknownOutcomeError(node, earlier, unit.itemIndex);
				unit.outcome = { ok: false, itemIndex: unit.itemIndex, error };
			} else {
				pending.push(unit);
			}
		});
	}
	// Idempotency Key: a key claimed (atomically) before its message goes; one sent before answers `alreadySent`.
	const keys = run.keys;
	const claims = keys && (await claimKeys(node, keys, pending, run.resendUnknown).catch((error: unknown) => failUnsent(pending.filter((u) => keys.of(u.itemIndex)), error)));
	if (keys) pending = claims ? claims.post : pending.filter((unit) => !unit.outcome);
	try {
		const outcomes = await postPending(run, units, pending, options, { claims: claims || undefined, estimate, failUnsent });
		const repeated = outcomes.filter((outcome) => outcome.ok && outcome.json.alreadySent === true).length;
		if (repeated) run.hint(alreadySentNote(repeated, repeated < outcomes.filter((outcome) => outcome.ok && outcome.json.accepted === true).length, options.noun));
		return outcomes;
	} finally {
		await claims?.end();
		// The node's output says "sent" only once n8n's database knows it too: a restart right after
		// the execution ended would otherwise find the last messages (and keys) under way, not sent.
		await Promise.all([ledger.stored?.(), keys?.store.stored?.()]);
	}
}

async function postPending<U extends SendUnit, W>(
	run: SendRun,
	units: U[],
	pending: U[],
	options: RoundOptions<U, W>,
	{ claims, estimate, failUnsent }: { claims?: Awaited<ReturnType<typeof claimKeys<U>>>; estimate?: number; failUnsent: (failed: U[], error: unknown) => void },
): Promise<UnitOutcome[]> {
	const { ledger, policies } = run;
	const budget = policies.maxCredits;
	let used = 0;
	// As an AI tool: what this call sends counts against the execution's message cap (or is refused).
	const cap = await run.cap.reserve(pending.length);
	const record = async (posted: Posted<U>) => {
		const entries: Array<[string, LedgerEntry | undefined]> = [];
		for (const [unit, outcome] of posted) {
			unit.outcome = outcome;
			if (outcome.ok) entries.push([unit.identity, { outcome: 'accepted', json: outcome.json }]);
			else if (mayHaveBeenProcessed(outcome.error)) entries.push([unit.identity, unknownOutcome(outcome)]);
			else {
				entries.push([unit.identity, undefined]);
				cap.release();
			}
		}
		await ledger.record(entries);
	};
	const step = async (post: W): Promise<ItemFailure | undefined> => {
		const postUnits = options.unitsOf(post);
		const identities = postUnits.map((unit) => unit.identity);
		const mark = underWay(run.node, ledger, identities);
		// What each unit costs, read before the post (Send Bulk releases its values once posted).
		const credits = budget === undefined ? undefined : new Map(postUnits.map((unit) => [unit, options.creditsOf(unit) ?? 0]));
		claims?.started(postUnits);
		// A long run's row is written in gathers: its mark is made before the post waits for its turn.
		if (ledger.marksInSlot?.() === false) await mark.begin().catch(() => undefined);
		let posted = mark.failed ? [] : await options.post(post, mark.begin);
		if (mark.failed) {
			// Not posted: the ledger could not mark it. Whatever one store took goes again.
			await ledger.record(identities.map((identity) => [identity, undefined]));
			failUnsent(postUnits, mark.failed.error);
			posted = postUnits.map((unit) => [unit, unit.outcome!]);
			await claims?.settle(posted);
			cap.release(postUnits.length);
			return postUnits[0].outcome?.ok === false ? postUnits[0].outcome : undefined;
		}
		// A post that returned without reaching its request (it failed before) marked nothing; one that
		// sent without calling begin (none should) is marked now, late rather than never.
		if (!mark.began && posted.some(([, outcome]) => outcome.ok || mayHaveBeenProcessed(outcome.error))) await ledger.begin(identities).catch(() => undefined);
		if (credits) for (const [unit, outcome] of posted) if (outcome.ok) used += credits.get(unit) ?? 0;
		await record(posted);
		await claims?.settle(posted);
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
		cap.release(rest.length);
	}
	if (budget !== undefined) run.hint(budgetNote(used, estimate, budget));
	return units.map((unit) => unit.outcome!);
}
