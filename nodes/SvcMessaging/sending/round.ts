import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { reserveAgentMessages } from '../aiTool/agentCap';
import { mayHaveBeenProcessed } from '../transport/errors';
import { apiRequest, connectKeyLimiter, unwrap } from '../transport/request';
import { messageIdentities } from './ledger';
import { failureOf, finishSend, outputFailure, type ItemFailure } from './outcomes';
import { openLedger, unknownOutcome, unknownOutcomeError } from './recovery';

/** One item's request, built and checked before anything is sent. */
export interface PreparedPost {
	body: IDataObject;
	/** what identifies the message in the send ledger, when not the whole body */
	ledgerBody?: IDataObject;
	/** the output item's json from the service's `data` */
	output: (data: IDataObject) => IDataObject;
	/** fields that identify the item in a rejected output item */
	identity: IDataObject;
}

export type PreparedOrFailed = PreparedPost | ItemFailure;

/** Prepares every item first: nothing is sent while any item is invalid (unless Continue On Fail). */
export async function prepareAll(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	prepare: (itemIndex: number) => Promise<PreparedPost>,
): Promise<PreparedOrFailed[]> {
	const prepared: PreparedOrFailed[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			prepared.push(await prepare(i));
		} catch (error) {
			prepared.push(failureOf(ctx, error, i));
		}
	}
	const invalid = prepared.filter((p): p is ItemFailure => 'error' in p);
	if (invalid.length && !ctx.continueOnFail()) throw invalid[0].error;
	return prepared;
}

/**
 * POSTs each prepared item once. The send ledger remembers what was accepted (or may have been):
 * n8n's Retry On Fail and an execution retry then report it again (`alreadySent: true`) instead of
 * sending it a second time; a message whose earlier outcome is unknown is reported, and sent again
 * only with "Resend Messages With Unknown Outcome".
 */
export async function postOnce(
	ctx: IExecuteFunctions,
	prepared: PreparedOrFailed[],
	path: string,
	noun: string,
	identityOfInvalid: (itemIndex: number) => IDataObject,
): Promise<INodeExecutionData[]> {
	await connectKeyLimiter.call(ctx);
	const ledger = await openLedger(ctx);
	const resendUnknown = ctx.getNodeParameter('options.resendUnknownOutcome', 0, false) as boolean;
	const identities = messageIdentities(prepared.map((p) => ('error' in p ? '' : JSON.stringify(p.ledgerBody ?? p.body))));
	const known = ledger.consult ? await ledger.lookup(identities) : [];
	const failures: ItemFailure[] = prepared.filter((p): p is ItemFailure => 'error' in p);
	// As an AI tool: what this call sends counts against the execution's message cap (or is refused).
	const cap = reserveAgentMessages(ctx, prepared.filter((p, i) => !('error' in p) && known[i]?.outcome !== 'accepted').length);
	let accepted = 0;
	const output = await Promise.all(
		prepared.map(async (p, i): Promise<INodeExecutionData> => {
			if ('error' in p) return outputFailure(ctx, p, identityOfInvalid(i));
			const earlier = known[i];
			if (earlier?.outcome === 'accepted') {
				accepted++;
				return { json: { ...earlier.json, alreadySent: true }, pairedItem: { item: i } };
			}
			try {
				if (earlier?.outcome === 'unknown' && !resendUnknown) throw unknownOutcomeError(ctx, earlier, i);
				const data = unwrap<IDataObject>(
					await apiRequest.call(ctx, { method: 'POST', path, auth: 'apiKey', body: p.body, itemIndex: i }),
				);
				const json = p.output(data ?? {});
				await ledger.record([[identities[i], { outcome: 'accepted', json }]]);
				accepted++;
				return { json, pairedItem: { item: i } };
			} catch (error) {
				const failure = failureOf(ctx, error, i);
				if (mayHaveBeenProcessed(failure.error)) await ledger.record([[identities[i], unknownOutcome(failure)]]);
				else cap.release();
				failures.push(failure);
				return outputFailure(ctx, failure, p.identity);
			}
		}),
	);
	failures.sort((a, b) => a.itemIndex - b.itemIndex);
	const result = finishSend(ctx, output, failures, accepted, noun);
	await ledger.finish();
	return result;
}
