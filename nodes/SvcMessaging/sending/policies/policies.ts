import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDIT_BUDGET_EXCEEDED, INVALID_INPUT, withErrorCode } from '../../transport/errors';
import type { DoNotSend } from './doNotSend';
import type { QuietHours } from './quietHours';
import type { HoursCount } from './sendingHours';

/**
 * The send policies a user sets in Options, read once per node run by the stage each belongs to
 * (../stages/index.ts readStages) and applied by those stages, in the order written there, to every
 * sending operation.
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

/** Options → Max Credits of the run (its first item's: one run, one budget), checked; undefined when not set. */
export function readMaxCredits(node: INode, raw: unknown): number | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const maxCredits = Number(raw);
	if (!Number.isFinite(maxCredits) || maxCredits < 0) {
		const error = new NodeOperationError(node, `Item 0: "Max Credits" must be a number of credits, 0 or more (got ${JSON.stringify(raw)})`, {
			itemIndex: 0,
			description: 'Nothing was sent. Remove the option to send without a budget.',
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	return maxCredits;
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
