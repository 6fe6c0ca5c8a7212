import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getServiceCredentials, planLimits, type SvcContext } from '../transport/credentials';
import { messageIdentities } from './ledger';
import { failureOf, finishSend, outputFailure, type ItemFailure } from './outcomes';
import { sendOnce, type Posted, type SendUnit } from './round';
import { sendWindow } from './window';

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

export interface PostEachOptions {
	/** the endpoint's function in api/ */
	post: (ctx: SvcContext, body: IDataObject, itemIndex: number) => Promise<IDataObject>;
	/** what one item is, in the error that lists the items not accepted */
	noun: string;
	/** fields that identify an item that failed its checks, in its rejected output item */
	identityOfInvalid: (itemIndex: number) => IDataObject;
	/** "Check Balance Before Sending": the estimate */
	creditsNeeded?: number;
	/** see RoundOptions.finishesLater */
	finishesLater?: boolean;
}

interface ItemUnit extends SendUnit {
	prepared: PreparedPost;
}

/**
 * One POST per prepared item (SMS Send, Send and Wait, Chat Message → Send, Template → Create),
 * through the send-once round. Every input item ends as one output item, in input order.
 */
export async function postEach(ctx: IExecuteFunctions, prepared: PreparedOrFailed[], options: PostEachOptions): Promise<INodeExecutionData[]> {
	const identities = messageIdentities(prepared.map((p) => ('error' in p ? '' : JSON.stringify(p.ledgerBody ?? p.body))));
	const units: ItemUnit[] = [];
	prepared.forEach((p, i) => {
		if (!('error' in p)) units.push({ itemIndex: i, identity: identities[i], prepared: p });
	});
	const window = sendWindow(planLimits(await getServiceCredentials.call(ctx, 'apiKey')));
	const postOne = async (unit: ItemUnit): Promise<Posted<ItemUnit>> => {
		try {
			const data = await options.post(ctx, unit.prepared.body, unit.itemIndex);
			return [[unit, { ok: true, json: unit.prepared.output(data ?? {}) }]];
		} catch (error) {
			return [[unit, { ok: false, failure: failureOf(ctx, error, unit.itemIndex) }]];
		}
	};
	return await sendOnce(
		ctx,
		units,
		{
			kind: 'apiKey',
			creditsNeeded: options.creditsNeeded,
			finishesLater: options.finishesLater,
			resendUnknown: ctx.getNodeParameter('options.resendUnknownOutcome', 0, false) as boolean,
			// A bounded window of requests at a time (sending/window.ts), never the whole list.
			window,
			postsOf: (pending) => pending,
			unitsOf: (unit) => [unit],
			post: postOne,
		},
		(outcomes) => {
			// `outcomes` follows `units`, which follow `prepared` without its failed items.
			let n = 0;
			const failures: ItemFailure[] = [];
			let accepted = 0;
			const output = prepared.map((p, i): INodeExecutionData => {
				if ('error' in p) {
					failures.push(p);
					return outputFailure(ctx, p, options.identityOfInvalid(i));
				}
				const outcome = outcomes[n++];
				if (outcome.ok) {
					accepted++;
					return { json: outcome.json, pairedItem: { item: i } };
				}
				failures.push(outcome.failure);
				return outputFailure(ctx, outcome.failure, p.identity);
			});
			return finishSend(ctx, output, failures, accepted, options.noun);
		},
	);
}
