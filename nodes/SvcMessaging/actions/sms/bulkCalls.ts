import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendSms } from '../../api/sms';
import { failureOf, type ItemFailure } from '../../sending/outcomes';
import type { Settle, UnitOutcome } from '../../sending/round';
import type { Group, Recipient } from './bulkRecipients';

/**
 * Send Bulk's calls: one POST per chunk of a group's recipients, each recipient's outcome read
 * from the answer (accepted, rejected with its own error, or the call's failure) and settled in
 * the send-once round, which records it under the recipient's identity (see recipientPayload).
 */

/**
 * What was sent to the recipient, for the send ledger: number, message body (digest) and the
 * placeholder values (so the final text). messageIdentities() numbers repeats.
 */
export function recipientPayload(r: Recipient): string {
	const values = r.variables ? r.group.placeholders.map((name) => r.variables![name] ?? '').join('\u0001') : '';
	return `${r.phoneNumber}\u0000${r.group.id}\u0000${values}`;
}

export async function sendChunk(ctx: IExecuteFunctions, group: Group, chunk: Recipient[], settle: Settle<Recipient>): Promise<void> {
	const body: IDataObject = {
		...group.body,
		recipients: chunk.map((r) => (r.variables ? { phoneNumber: r.phoneNumber, variables: r.variables } : { phoneNumber: r.phoneNumber })),
	};
	let data: IDataObject;
	try {
		data = await sendSms(ctx, body, chunk[0].itemIndex);
	} catch (error) {
		const details = (error as { context?: { details?: unknown } }).context?.details;
		const byIndex = new Map<number, IDataObject>();
		if (Array.isArray(details)) for (const d of details as IDataObject[]) if (!byIndex.has(d.index as number)) byIndex.set(d.index as number, d);
		await settle(
			chunk.map((r, index) => {
				const detail = byIndex.get(index);
				return [r, { ok: false, failure: detail ? recipientFailure(ctx, r, detail) : failureOf(ctx, error, r.itemIndex) }];
			}),
		);
		return;
	}
	const rejected = new Map<number, IDataObject>();
	for (const e of (data.errors as IDataObject[] | undefined) ?? []) rejected.set(Number(e.index), e);
	const messages = (data.messages as IDataObject[] | undefined) ?? [];
	let next = 0;
	await settle(
		chunk.map((r, index): [Recipient, UnitOutcome] => {
			const error = rejected.size ? rejected.get(index) : undefined;
			if (error) return [r, { ok: false, failure: recipientFailure(ctx, r, error) }];
			const message = messages[next++] ?? {};
			// The recipient's own string when the service echoes the same number (one copy fewer for 100,000 recipients).
			const phoneNumber = message.phoneNumber === undefined || message.phoneNumber === r.phoneNumber ? r.phoneNumber : message.phoneNumber;
			return [r, { ok: true, json: { accepted: true, batchId: data.batchId, ...message, phoneNumber } }];
		}),
	);
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
