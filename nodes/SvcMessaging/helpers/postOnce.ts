import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mayHaveBeenProcessed } from '../transport/errors';
import { apiRequest, connectKeyLimiter, unwrap } from '../transport/request';
import { sendLedger } from './sendLedger';
import { failureOf, finishSend, outputFailure, type ItemFailure } from './sending';

/** One item's request, built and checked before anything is sent. */
export interface PreparedPost {
	body: IDataObject;
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
 * n8n's Retry On Fail then reports it again instead of sending it a second time.
 */
export async function postOnce(
	ctx: IExecuteFunctions,
	prepared: PreparedOrFailed[],
	path: string,
	noun: string,
	identityOfInvalid: (itemIndex: number) => IDataObject,
): Promise<INodeExecutionData[]> {
	await connectKeyLimiter.call(ctx);
	const ledger = sendLedger(ctx);
	const failures: ItemFailure[] = prepared.filter((p): p is ItemFailure => 'error' in p);
	let accepted = 0;
	const output = await Promise.all(
		prepared.map(async (p, i): Promise<INodeExecutionData> => {
			if ('error' in p) return outputFailure(ctx, p, identityOfInvalid(i));
			const payload = JSON.stringify(p.body);
			const known = ledger.get(i, payload);
			if (known?.outcome === 'accepted') {
				accepted++;
				return { json: known.json, pairedItem: { item: i } };
			}
			try {
				if (known?.outcome === 'unknown') {
					throw new NodeOperationError(ctx.getNode(), known.message, { itemIndex: i, description: known.description });
				}
				const data = unwrap<IDataObject>(
					await apiRequest.call(ctx, { method: 'POST', path, auth: 'apiKey', body: p.body, itemIndex: i }),
				);
				const json = p.output(data ?? {});
				ledger.set(i, payload, { outcome: 'accepted', json });
				accepted++;
				return { json, pairedItem: { item: i } };
			} catch (error) {
				const failure = failureOf(ctx, error, i);
				if (mayHaveBeenProcessed(failure.error)) {
					ledger.set(i, payload, {
						outcome: 'unknown',
						message: failure.error.message,
						description: failure.error.description ?? undefined,
					});
				}
				failures.push(failure);
				return outputFailure(ctx, failure, p.identity);
			}
		}),
	);
	failures.sort((a, b) => a.itemIndex - b.itemIndex);
	return finishSend(ctx, output, failures, accepted, noun);
}
