import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { LedgerEntry, SendLedger } from '../../sending/ledger';
import { failureOf, type ItemFailure } from '../../sending/outcomes';
import { unknownOutcome, unknownOutcomeError } from '../../sending/recovery';
import { mayHaveBeenProcessed } from '../../transport/errors';
import { apiRequest, unwrap } from '../../transport/request';
import { SERVICE } from '../../transport/service';
import type { Group, Recipient } from './bulkRecipients';

/**
 * Send Bulk's calls: one POST per chunk of a group's recipients, each recipient's outcome read
 * from the answer (accepted, rejected with its own error, or the call's failure) and recorded in
 * the send ledger under the recipient's identity (see recipientPayload).
 */

/**
 * What was sent to the recipient, for the send ledger: number, message body (digest) and the
 * placeholder values (so the final text). messageIdentities() numbers repeats.
 */
export function recipientPayload(r: Recipient): string {
	const values = r.variables ? r.group.placeholders.map((name) => r.variables![name] ?? '').join('\u0001') : '';
	return `${r.phoneNumber}\u0000${r.group.id}\u0000${values}`;
}

export async function sendChunk(ctx: IExecuteFunctions, group: Group, chunk: Recipient[], ledger: SendLedger): Promise<void> {
	const body: IDataObject = {
		...group.body,
		recipients: chunk.map((r) => (r.variables ? { phoneNumber: r.phoneNumber, variables: r.variables } : { phoneNumber: r.phoneNumber })),
	};
	let data: IDataObject;
	const unknown: Array<[string, LedgerEntry]> = [];
	try {
		data = unwrap<IDataObject>(
			await apiRequest.call(ctx, { method: 'POST', path: SERVICE.paths.sendSms, auth: 'apiKey', body, itemIndex: chunk[0].itemIndex }),
		);
	} catch (error) {
		const details = (error as { context?: { details?: unknown } }).context?.details;
		const byIndex = new Map<number, IDataObject>();
		if (Array.isArray(details)) for (const d of details as IDataObject[]) if (!byIndex.has(d.index as number)) byIndex.set(d.index as number, d);
		chunk.forEach((r, index) => {
			const detail = byIndex.get(index);
			const failure = detail ? recipientFailure(ctx, r, detail) : failureOf(ctx, error, r.itemIndex);
			if (mayHaveBeenProcessed(failure.error)) unknown.push([r.identity!, unknownOutcome(failure)]);
			r.outcome = { ok: false, failure, phoneNumber: r.phoneNumber };
		});
		await ledger.record(unknown);
		return;
	}
	const rejected = new Map<number, IDataObject>();
	for (const e of (data.errors as IDataObject[] | undefined) ?? []) rejected.set(Number(e.index), e);
	const messages = (data.messages as IDataObject[] | undefined) ?? [];
	const accepted: Array<[string, LedgerEntry]> = [];
	let next = 0;
	chunk.forEach((r, index) => {
		const error = rejected.size ? rejected.get(index) : undefined;
		if (error) {
			r.outcome = { ok: false, failure: recipientFailure(ctx, r, error), phoneNumber: r.phoneNumber };
			return;
		}
		const message = messages[next++] ?? {};
		// The recipient's own string when the service echoes the same number (one copy fewer for 100,000 recipients).
		const phoneNumber = message.phoneNumber === undefined || message.phoneNumber === r.phoneNumber ? r.phoneNumber : message.phoneNumber;
		const json: IDataObject = { accepted: true, batchId: data.batchId, ...message, phoneNumber };
		accepted.push([r.identity!, { outcome: 'accepted', json }]);
		r.outcome = { ok: true, json };
	});
	await ledger.record(accepted);
}

/**
 * Recipients an earlier try already sent (or may have sent) take their outcome from the ledger;
 * the others are returned, to be sent.
 */
export async function withoutSentBefore(ctx: IExecuteFunctions, ledger: SendLedger, recipients: Recipient[]): Promise<Recipient[]> {
	if (!ledger.consult) return recipients;
	const resendUnknown = ctx.getNodeParameter('options.resendUnknownOutcome', 0, false) as boolean;
	const known = await ledger.lookup(recipients.map((r) => r.identity!));
	return recipients.filter((r, n) => {
		const earlier = known[n];
		if (earlier?.outcome === 'accepted') {
			r.outcome = { ok: true, json: { ...earlier.json, alreadySent: true } };
			return false;
		}
		if (earlier?.outcome === 'unknown' && !resendUnknown) {
			const error = unknownOutcomeError(ctx, earlier, r.itemIndex);
			r.outcome = { ok: false, failure: { itemIndex: r.itemIndex, error }, phoneNumber: r.phoneNumber };
			return false;
		}
		return true;
	});
}

function recipientFailure(ctx: IExecuteFunctions, r: Recipient, detail: IDataObject): ItemFailure {
	const error = (detail.error ?? {}) as IDataObject;
	const failure = failureOf(
		ctx,
		new NodeOperationError(ctx.getNode(), `${String(error.code ?? 'REJECTED')} – ${String(error.message ?? 'rejected by the service')} (${r.phoneNumber})`, {
			itemIndex: r.itemIndex,
		}),
		r.itemIndex,
	);
	(failure.error as unknown as { errorResponse: IDataObject }).errorResponse = { code: error.code ?? 'REJECTED' };
	return failure;
}
