import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDIT_BUDGET_EXCEEDED, INVALID_INPUT, withErrorCode } from '../../transport/errors';
import type { DoNotSend } from './doNotSend';
import type { ItemFailure } from '../outcomes';
import { judge, judgeTogether, readQuietHours, verdictFields, zoneOfNumber, type QuietHours, type Verdict, type Zone } from './quietHours';

/**
 * The send policies a user sets in Options, read once per node run and applied by the send round
 * (round.ts) to every sending operation, in this order: the do-not-send list (a listed number
 * suppressed, doNotSend.ts) → sending hours (a message skipped,
 * deferred or sent anyway) → credit budget (of what is left to send) → dry run (priced, nothing
 * posted) → the send-once ledger and the posts.
 */
export interface SendPolicies {
	/** "Dry Run": every check runs, each unit is priced, nothing is posted, nothing recorded */
	readonly dryRun: boolean;
	/** "Max Credits": the run's estimate must not exceed it */
	readonly maxCredits?: number;
	/** "Sending Hours" (quietHours.ts) */
	readonly quietHours?: QuietHours;
	/** the do-not-send list: the credential's Redis and/or the numbers the workflow hands over (doNotSend.ts) */
	readonly doNotSend?: DoNotSend;
}

/** The policies of this node run, from the Options of its first item (one run, one budget). */
export function readPolicies(node: INode, options: IDataObject, zoneOf: (i: number) => string = () => 'UTC'): SendPolicies {
	const dryRun = options.dryRun === true;
	const quietHours = readQuietHours(node, options.sendingHours as IDataObject | undefined, zoneOf);
	const raw = options.maxCredits;
	if (raw === undefined || raw === null || raw === '') return quietHours ? { dryRun, quietHours } : { dryRun };
	const maxCredits = Number(raw);
	if (!Number.isFinite(maxCredits) || maxCredits < 0) {
		const error = new NodeOperationError(node, `Item 0: "Max Credits" must be a number of credits, 0 or more (got ${JSON.stringify(raw)})`, {
			itemIndex: 0,
			description: 'Nothing was sent. Remove the option to send without a budget.',
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	return quietHours ? { dryRun, maxCredits, quietHours } : { dryRun, maxCredits };
}

/**
 * The run's credit estimate: the sum of its units' credits. Undefined when a unit's credits cannot
 * be told before sending (a campaign's contact groups: only the service counts their members).
 */
export function estimateCredits<U>(units: U[], creditsOf: (unit: U) => number | undefined): number | undefined {
	let total = 0;
	for (const unit of units) {
		const credits = creditsOf(unit);
		if (credits === undefined) return undefined;
		total += credits;
	}
	return total;
}

/** "Max Credits": refuses the whole send, before its first request, when the estimate is above the budget. */
export function assertBudget(node: INode, policies: SendPolicies, estimate: number | undefined): void {
	const budget = policies.maxCredits;
	if (budget === undefined || (estimate !== undefined && estimate <= budget)) return;
	const message =
		estimate === undefined
			? `CREDIT_BUDGET_EXCEEDED: the credits of this send cannot be estimated before sending (contact groups' members are counted by the service only), so "Max Credits" (${budget}) cannot be kept. Nothing was sent.`
			: `CREDIT_BUDGET_EXCEEDED: this send needs about ${estimate} credits, more than "Max Credits" (${budget}). Nothing was sent.`;
	const error = new NodeOperationError(node, message, {
		itemIndex: 0,
		description:
			estimate === undefined
				? 'Send to phone numbers only, or remove "Max Credits" (Check Balance Before Sending still counts the groups).'
				: 'The estimate counts one credit per SMS segment of each message (one per chat message). Raise "Max Credits", send fewer messages or shorter ones, or try "Dry Run" to see each message\'s cost.',
	});
	throw withErrorCode(error, CREDIT_BUDGET_EXCEEDED);
}

/** What Sending Hours did to a run's units: skipped (not sent), deferred (scheduled for the next opening). */
export interface HoursCount {
	skipped: number;
	deferred: number;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The execution hint of a dry run: what would have been sent, and its cost. */
export function dryRunNote(units: number, estimate: number | undefined, budget: number | undefined, noun = 'message', hours?: HoursCount): string {
	const cost = estimate === undefined ? 'credits not estimated (contact groups are counted by the service)' : `about ${estimate} credit${estimate === 1 ? '' : 's'}`;
	const against = budget === undefined ? '' : ` of the budget of ${budget} (Max Credits)`;
	const later = hours?.deferred ? ` (${hours.deferred} of them scheduled for the next opening of Sending Hours)` : '';
	const skipped = hours?.skipped ? ` ${plural(hours.skipped, noun)} would be skipped: outside Sending Hours.` : '';
	return `Dry run: nothing was sent. ${plural(units, noun)} would be sent${later}, ${cost}${against}.${skipped} Turn off "Dry Run" to send.`;
}

/** The execution hint of a send that skipped messages outside Sending Hours. */
export function skippedNote(count: number, noun = 'message'): string {
	return `${plural(count, noun)} ${count === 1 ? 'was' : 'were'} not sent: outside Sending Hours (skipped: true in the output, with the next opening).`;
}

/** The execution hint of a send whose messages an earlier execution (or Idempotency Key) had sent. */
export function alreadySentNote(count: number, sentNow: boolean, noun = 'message'): string {
	const rest = sentNow ? 'they were not sent again' : 'nothing was sent now';
	return `${plural(count, noun)} ${count === 1 ? 'was' : 'were'} already sent (alreadySent: true in the output): ${rest}.`;
}

/** The execution hint of a send with a budget: the credits its accepted messages used against it. */
export function budgetNote(used: number, estimate: number | undefined, budget: number): string {
	return `Max Credits: about ${used} of ${budget} credits used${estimate !== undefined && estimate !== used ? ` (estimate ${estimate})` : ''}.`;
}

/** How an operation takes a message deferred by Sending Hours. */
export type Scheduling = 'scheduledAt' | 'none' | 'noWait';

export interface HoursUnit {
	itemIndex: number;
	/** Sending Hours deferred it: its output fields, with the scheduledAt it is posted with */
	deferred?: IDataObject;
	outcome?: { ok: true; json: IDataObject } | ItemFailure;
}

/**
 * Sending Hours over the units, judged at one instant: a unit skipped ends with its outcome (not
 * sent, with the next opening); a deferred one gets `deferred` (SMS: posted with that scheduledAt;
 * Send and Wait: refused, as it cannot wait for it). Answers how many units were decided here
 * (skipped among them), and how many deferred.
 */
export function applyQuietHours<U extends HoursUnit>(
	node: INode,
	hours: QuietHours,
	units: U[],
	unit: {
		recipientOf?: (u: U) => string;
		/** one send time for several recipients (a scheduled campaign); undefined: not judged (a draft) */
		recipientsOf?: (u: U) => SharedSendTime | undefined;
		scheduledAtOf?: (u: U) => string | undefined;
		price: (u: U) => IDataObject;
		scheduling: Scheduling;
	},
): HoursCount & { decided: number } {
	if (hours.outside === 'schedule' && unit.scheduling === 'none') {
		const error = new NodeOperationError(node, 'Item 0: chat messages cannot be scheduled, so "Outside Sending Hours" cannot be "Schedule for the Next Opening"', {
			itemIndex: 0,
			description: 'Nothing was sent. Choose Skip (the item is output as not sent, with the next opening) or Send Anyway.',
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	const now = Date.now();
	let decided = 0;
	let skipped = 0;
	let deferred = 0;
	for (const u of units) {
		if (u.outcome) continue;
		const own = unit.scheduledAtOf?.(u);
		const verdict = unit.recipientOf ? judge(hours, unit.recipientOf(u), u.itemIndex, now, own) : judgeShared(node, hours, u, unit.recipientsOf?.(u));
		if (verdict.kind === 'never') {
			u.outcome = { ok: false, itemIndex: u.itemIndex, error: verdict.error };
			decided++;
			continue;
		}
		if (verdict.kind === 'open') continue;
		const fields = verdictFields(verdict, own);
		if (verdict.kind === 'send') {
			// Sent as it is (its own Scheduled Time kept), its output marked sentAnyway.
			u.deferred = own ? { ...fields, scheduledAt: own } : fields;
			continue;
		}
		if (verdict.kind === 'skip') {
			// What would have been posted, without a send time or cost: nothing goes out, nothing is charged.
			const { sendAt: _sendAt, credits: _credits, segments: _segments, ...json } = unit.price(u);
			u.outcome = { ok: true, json: { ...json, accepted: false, ...fields } };
			decided++;
			skipped++;
		} else if (unit.scheduling === 'noWait') {
			const error = new NodeOperationError(
				node,
				`Item ${u.itemIndex}: outside Sending Hours (${String(fields.judgedLocalTime)}, ${String(fields.timeZone)}): the next opening is ${String(fields.scheduledAt)}, and Send and Wait does not wait for scheduled messages`,
				{ itemIndex: u.itemIndex, description: 'Nothing was sent for this item. Choose Skip or Send Anyway, or use SMS → Send (it schedules) with a delivery report trigger.' },
			);
			u.outcome = { ok: false, itemIndex: u.itemIndex, error: withErrorCode(error, INVALID_INPUT) };
			decided++;
		} else {
			u.deferred = fields;
			deferred++;
		}
	}
	return { decided, skipped, deferred };
}

/** A campaign's recipients as Sending Hours sees them: its numbers, and whether contact groups come too. */
export interface SharedSendTime {
	scheduledAt: string;
	numbers: string[];
	contactGroups: boolean;
}

/**
 * One send time for all of a campaign's recipients: judged in each zone its numbers are in (one per
 * country), contact groups in the Time Zone field, else the workflow's (their members are known to
 * the service only). No time that suits every zone: the item is refused, nothing created.
 */
function judgeShared(node: INode, hours: QuietHours, u: HoursUnit, shared: SharedSendTime | undefined): Verdict | { kind: 'never'; error: NodeOperationError } {
	if (!shared) return { kind: 'open' };
	const zones = new Map<string, Zone>();
	for (const number of shared.numbers) {
		const zone = zoneOfNumber(hours, number, u.itemIndex);
		zones.set('fixed' in zone ? zone.label : zone.iana, zone);
	}
	if (shared.contactGroups || zones.size === 0) zones.set(hours.zoneOf(u.itemIndex), { iana: hours.zoneOf(u.itemIndex) });
	const verdict = judgeTogether(hours, [...zones.values()], shared.scheduledAt);
	if (verdict.kind !== 'never') return verdict;
	const error = new NodeOperationError(node, `Item ${u.itemIndex}: no time inside Sending Hours suits every recipient of this campaign (${verdict.zone}) within a week`, {
		itemIndex: u.itemIndex,
		description: 'The campaign was not created. A campaign has one send time: split it by country, or widen the hours.',
	});
	return { kind: 'never', error: withErrorCode(error, INVALID_INPUT) };
}
