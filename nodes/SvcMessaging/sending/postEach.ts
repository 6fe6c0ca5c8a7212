import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import type { BeforeSend } from '../transport/request';
import { messageIdentities } from './ledger/ledger';
import { finishSend, isFailure, outputFailure, type ItemFailure } from './outcomes';
import { sendOnce, type Posted, type SendUnit } from './round';
import type { Scheduling } from './policies/sendingHours';
import { openSendRun } from './sendRun';
import { sendWindow } from './window';

/** One item's request, built and checked before anything is sent (its identity in the send ledger). */
export interface PreparedPost {
	body: IDataObject;
}

export interface PostEachOptions<P extends PreparedPost> {
	/** the endpoint's function in api/ */
	post: (ctx: SvcContext, body: IDataObject, itemIndex: number, beforeSend: BeforeSend) => Promise<IDataObject>;
	/**
	 * An accepted item's output json, from its prepared request and the service's `data`. A function
	 * of the operation, called here as each answer arrives, and not built by the operation from the
	 * returned outcomes: the send ledger keeps this very output (what a Retry reports again, as the
	 * user saw it), written the moment the service answers, before the run ends or crashes.
	 */
	accepted: (prepared: P, data: IDataObject) => IDataObject;
	/** what one item's message costs in credits (Max Credits, a dry run's total); default none (Template → Create) */
	creditsOf?: (prepared: P) => number | undefined;
	/** a dry run's output of one item: what would be posted, and its cost; default its request body */
	price?: (prepared: P) => IDataObject;
	/** Sending Hours: the item's number and its own scheduled time (without recipientOf the hours do not apply) */
	recipientOf?: (prepared: P) => string;
	scheduledAtOf?: (prepared: P) => string | undefined;
	/** whether the item asked for Sender ID "Automatic (by Recipient's Country)" */
	automaticSender?: (prepared: P) => boolean;
	/** how the operation takes a deferred message (sending/policies/policies.ts) */
	scheduling?: Scheduling;
	/** fields that identify an item in its rejected output item (`prepared` undefined: it failed its checks) */
	identify: (prepared: P | undefined, itemIndex: number) => IDataObject;
	/** sent with every body, but not part of a message's identity in the send ledger (Send and Wait's report URL) */
	extraBody?: IDataObject;
	/** what one item is, in the error that lists the items not accepted */
	noun: string;
	/** "Check Balance Before Sending": the estimate */
	creditsNeeded?: number;
	/**
	 * The run is not finished when its messages are posted (Send and Wait: it waits for them
	 * first); the operation calls sendRun.ts's finishRun when it is.
	 */
	finishesLater?: boolean;
}

interface ItemUnit<P> extends SendUnit {
	prepared: P;
}

/**
 * One POST per prepared item (SMS Send, Send and Wait, Chat Message → Send, Template → Create),
 * through the send-once round. Every input item ends as one output item, in input order.
 */
export async function postEach<P extends PreparedPost>(
	ctx: IExecuteFunctions,
	prepared: Array<P | ItemFailure>,
	options: PostEachOptions<P>,
): Promise<INodeExecutionData[]> {
	const run = await openSendRun(ctx, { kind: 'apiKey', creditsNeeded: options.creditsNeeded, followsMessages: options.finishesLater });
	const identities = messageIdentities(prepared.map((p) => (isFailure(p) ? '' : JSON.stringify(p.body))));
	const units: Array<ItemUnit<P>> = [];
	prepared.forEach((p, i) => {
		// `outcome` from the start: set later, it would move each unit's fields to a store of their own.
		if (!isFailure(p)) units.push({ itemIndex: i, identity: identities[i], prepared: p, outcome: undefined });
	});
	const extra = options.extraBody && Object.keys(options.extraBody).length > 0 ? options.extraBody : undefined;
	const postOne = async (unit: ItemUnit<P>, begin: BeforeSend): Promise<Posted<ItemUnit<P>>> => {
		const { body } = unit.prepared;
		// Sending Hours' scheduledAt is posted but, like `extra`, not part of the identity: a retry
		// judges the hours anew and must still recognise the message.
		// So is the sender ID chosen for the number's country (a retry chooses again).
		const when = unit.deferred || unit.sender ? { ...(unit.deferred && { scheduledAt: unit.deferred.scheduledAt }), ...(unit.sender && { senderId: unit.sender }) } : undefined;
		try {
			// No copy per item unless something is added.
			const data = await run.callEndpoint(options.post, extra || when ? { ...body, ...extra, ...when } : body, unit.itemIndex, begin);
			const json = options.accepted(unit.prepared, data ?? {});
			return [[unit, { ok: true, json: when ? Object.assign(json, unit.deferred, when) : json }]];
		} catch (error) {
			return [[unit, run.failure(error, unit.itemIndex)]];
		}
	};
	const outcomes = await sendOnce(run, units, {
		// A bounded window of requests at a time (sending/window.ts), never the whole list.
		window: sendWindow(run.limits),
		postsOf: (pending) => pending,
		unitsOf: (unit) => [unit],
		post: postOne,
		creditsOf: (unit) => options.creditsOf?.(unit.prepared) ?? 0,
		price: (unit) => options.price?.(unit.prepared) ?? { ...unit.prepared.body },
		recipientOf: options.recipientOf && ((unit) => options.recipientOf!(unit.prepared)),
		scheduledAtOf: options.scheduledAtOf && ((unit) => options.scheduledAtOf!(unit.prepared)),
		scheduling: options.scheduling,
		automaticSender: options.automaticSender && ((unit) => options.automaticSender!(unit.prepared)),
	});
	// `outcomes` follows `units`, which follow `prepared` without its failed items.
	let n = 0;
	const failures: ItemFailure[] = [];
	let accepted = 0;
	const output = prepared.map((p, i): INodeExecutionData => {
		if (isFailure(p)) {
			failures.push(p);
			return outputFailure(run, p, options.identify(undefined, i));
		}
		const outcome = outcomes[n++];
		if (outcome.ok) {
			accepted++;
			return { json: outcome.json, pairedItem: { item: i } };
		}
		failures.push(outcome);
		return outputFailure(run, outcome, options.identify(p, i));
	});
	const result = finishSend(run, output, failures, accepted, options.noun);
	if (!options.finishesLater) await run.finish();
	return result;
}
