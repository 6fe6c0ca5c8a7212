import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { LEDGER_UNAVAILABLE, REDIS_UNAVAILABLE, UNKNOWN_OUTCOME, withErrorCode } from '../transport/errors';
import { itemLead, titledErrors } from '../transport/errorTitles';
import { RedisUnavailable } from '../transport/redis';
import { DatabaseUnavailable } from './ledger/durableMarks';
import { KeysFull } from './keys/keyClaims';
import { SEND_LEDGER } from './ledger/ledgerBounds';
import type { EarlierEntry, LedgerEntry } from './ledger/ledger';
import type { ItemFailure } from './outcomes';

/** What the ledger keeps of a send that may have reached the service (timeout, dropped connection, 5xx). */
export function unknownOutcome(failure: ItemFailure): LedgerEntry {
	return { outcome: 'unknown', message: failure.error.message, description: failure.error.description ?? undefined };
}

/** A message an earlier try may have sent: reported, not sent again (unless the user asks). */
export function unknownOutcomeError(node: INode, earlier: EarlierEntry & { outcome: 'unknown' }, itemIndex: number) {
	const { executionId, at } = earlier.sentIn;
	// The earlier error named its item itself; version 2 names it first, as every error does.
	const earlierWords = earlier.message.replace(/^Item \d+: /, '');
	const lead = titledErrors(node) ? itemLead(itemIndex) : '';
	const error = new NodeOperationError(node, `${lead}An earlier try may already have sent this message (${earlierWords})`, {
		itemIndex,
		description:
			`${earlier.description ? `${earlier.description} ` : ''}The earlier try: execution ${executionId}${at ? ` at ${at}` : ''}. ` +
			'It is not sent again, so that nobody gets it twice. ' +
			'Check the message log in the dashboard; to send it anyway, turn on the option "Resend Messages With Unknown Outcome" and run the node again.',
	});
	return withErrorCode(error, UNKNOWN_OUTCOME);
}

/** The shared ledger's Redis failed before this item was posted: it fails unsent, saying why. */
export function ledgerError(node: INode, error: RedisUnavailable, itemIndex: number): NodeOperationError {
	return withErrorCode(new NodeOperationError(node, error.message, { itemIndex, description: error.description }), REDIS_UNAVAILABLE);
}

/** n8n's database did not take the mark written before this item's post: it fails unsent, saying why. */
export function databaseLedgerError(node: INode, error: DatabaseUnavailable, itemIndex: number): NodeOperationError {
	return withErrorCode(new NodeOperationError(node, error.message, { itemIndex, description: error.description }), LEDGER_UNAVAILABLE);
}

/**
 * Redis (the do-not-send list, the shared ledger, the keys) or n8n's database (the ledger's marks,
 * the keys' claims) failed before these units were posted, or this process holds no more keys: they
 * fail unsent with its error. Any other error fails the node.
 */
export function failedUnsent(node: INode, units: Array<{ itemIndex: number; outcome?: unknown }>, error: unknown): void {
	if (!(error instanceof DatabaseUnavailable) && !(error instanceof RedisUnavailable) && !(error instanceof KeysFull)) throw new NodeOperationError(node, error as Error);
	const errorOf = (itemIndex: number) => {
		if (error instanceof KeysFull) return withErrorCode(new NodeOperationError(node, error.message, { itemIndex, description: error.description }), error.code);
		return error instanceof DatabaseUnavailable ? databaseLedgerError(node, error, itemIndex) : ledgerError(node, error, itemIndex);
	};
	for (const unit of units) {
		const itemError = errorOf(unit.itemIndex);
		unit.outcome = { ok: false, itemIndex: unit.itemIndex, error: itemError };
	}
}

/**
 * The hint of a Retry whose run began before the marks n8n's database keeps (this and the previous
 * half-day: 12 to 24 hours): what that run sent was not recognised, so it may have gone again.
 */
export function olderRunNote(began: number): string {
	const hours = SEND_LEDGER.durable.bucketMs / 3600_000;
	return (
		`This Retry repeats a run that began more than ${hours}–${2 * hours} hours before this Retry (on or after ${new Date(began).toISOString()}): ` +
		`the send ledger keeps what a run sent for ${hours} to ${2 * hours} hours in n8n’s database, so the messages that run sent were not recognised and may have been sent twice. ` +
		'Check the message log in the dashboard.'
	);
}
