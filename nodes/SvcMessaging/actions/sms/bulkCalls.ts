import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendSms, type BeforeSend } from '../../api/sms';
import { failureOf, type ItemFailure } from '../../sending/outcomes';
import type { Posted, UnitOutcome } from '../../sending/round';
import { requestWindow } from '../../transport/requestWindow';
import type { PlanLimits } from '../../transport/service';
import { fillPlaceholders, type MessageStats } from '../../rules/segments';
import { SERVICE } from '../../transport/service';
import { itemLead, senderRefusedTitle, titledErrors, TITLES } from '../../transport/errorTitles';
import { countryName } from './senderRefusal';
import { statsWith, variablesOf, type Group, type Recipient } from './bulkRecipients';

/**
 * Send Bulk's calls: one POST per chunk of a group's recipients, each recipient's outcome read
 * from the answer (accepted, rejected with its own error, or the call's failure) and settled in
 * the send-once round, which records it under the recipient's identity (bulkIdentities.ts).
 */

/** One call: recipients `start` to `end` (exclusive) of a group's members, sent at one time. */
export interface Chunk {
	group: Group;
	members: Recipient[];
	start: number;
	end: number;
	/** Sending Hours deferred these recipients to this time (one call per group and send time) */
	scheduledAt?: unknown;
	/** Sender ID "Automatic": the sender ID chosen for these recipients' country */
	sender?: string;
}

/**
 * The pending recipients in calls of at most `perCall`, each call one group (one message body) and
 * one send time (Sending Hours defers recipients by their country's local time).
 */
export function chunksOf(pending: Recipient[], perCall: number): Chunk[] {
	const groups = new Map<Group, Map<string, Recipient[]>>();
	// One call per send time and sender ID (Sending Hours, Automatic sender) within a group.
	const sendAt = (r: Recipient) => (r.deferred || r.sender ? `${String(r.deferred?.scheduledAt ?? '')}\u0000${r.sender ?? ''}` : '');
	// Usually one message and one time for all: its members are the pending list itself, not a copy.
	if (pending.length && pending.every((r) => r.group === pending[0].group && sendAt(r) === sendAt(pending[0]))) {
		groups.set(pending[0].group, new Map([[sendAt(pending[0]), pending]]));
	} else {
		for (const r of pending) {
			const times = groups.get(r.group) ?? groups.set(r.group, new Map()).get(r.group)!;
			const members = times.get(sendAt(r));
			if (members) members.push(r);
			else times.set(sendAt(r), [r]);
		}
	}
	const chunks: Chunk[] = [];
	for (const [group, times] of groups) {
		for (const members of times.values()) {
			const { deferred, sender } = members[0];
			for (let start = 0; start < members.length; start += perCall) {
				chunks.push({ group, members, start, end: Math.min(start + perCall, members.length), scheduledAt: deferred?.scheduledAt, sender });
			}
		}
	}
	return chunks;
}

/**
 * Not shown in the spec (a choice of this package): how many recipients one Send Bulk execution
 * keeps in calls under way at once. Each call's request body and answer stay in memory until it is
 * answered: two Business calls of 10,000 (Starter's request window, ten calls of 1,000, is smaller).
 */
export const BULK_RECIPIENTS_IN_FLIGHT = 20_000;

/**
 * Chunks under way at once: the key's request window (requestWindow), but no more recipients than
 * BULK_RECIPIENTS_IN_FLIGHT (at least one chunk).
 */
export function bulkCallWindow(limits: PlanLimits): number {
	return Math.max(1, Math.min(requestWindow(limits), Math.floor(BULK_RECIPIENTS_IN_FLIGHT / limits.recipientsPerCall)));
}

/**
 * Posts one chunk and answers each of its recipients' outcome. The body is built here, when the chunk's
 * turn comes (a bounded number of chunks at a time: bulkCallWindow), not for every chunk at once.
 */
export async function sendChunk(ctx: IExecuteFunctions, { group, members, start, end, scheduledAt, sender }: Chunk, begin: BeforeSend): Promise<Posted<Recipient>> {
	const chunk = members.slice(start, end);
	// What each recipient's text costs, read with the values the body is built from (they are
	// released once the post is made).
	const stats: MessageStats[] = [];
	// Each recipient's text as it receives it (placeholders filled); the group's one string when it has none.
	const texts: string[] = [];
	const template = group.body.message as string;
	const body: IDataObject = {
		...group.body,
		...(scheduledAt ? { scheduledAt } : {}),
		...(sender ? { senderId: sender } : {}),
		recipients: chunk.map((r) => {
			const variables = variablesOf(r);
			stats.push(statsWith(group, variables));
			texts.push(variables && group.placeholders.length ? fillPlaceholders(template, variables) : template);
			return variables ? { phoneNumber: r.phoneNumber, variables } : { phoneNumber: r.phoneNumber };
		}),
	};
	let data: IDataObject;
	try {
		data = await sendSms(ctx, body, chunk[0].itemIndex, begin);
	} catch (error) {
		const details = (error as { context?: { details?: unknown } }).context?.details;
		const byIndex = new Map<number, IDataObject>();
		if (Array.isArray(details)) for (const d of details as IDataObject[]) if (!byIndex.has(d.index as number)) byIndex.set(d.index as number, d);
		return chunk.map((r, index) => {
			const detail = byIndex.get(index);
			return [r, detail ? recipientFailure(ctx, r, detail) : failureOf(ctx, error, r.itemIndex)];
		});
	} finally {
		// Sent (or not): the values are in the ledger identity and no longer needed until the send ends.
		for (const r of chunk) r.variables = undefined;
	}
	const rejected = new Map<number, IDataObject>();
	for (const e of (data.errors as IDataObject[] | undefined) ?? []) rejected.set(Number(e.index), e);
	const messages = (data.messages as IDataObject[] | undefined) ?? [];
	let next = 0;
	return chunk.map((r, index): [Recipient, UnitOutcome] => {
		const error = rejected.size ? rejected.get(index) : undefined;
		if (error) return [r, recipientFailure(ctx, r, error)];
		const json = acceptedJson(data.batchId, messages[next++] ?? {}, r.phoneNumber, stats[index], group, texts[index]);
		if (sender) json.senderId = sender;
		return [r, { ok: true, json: r.deferred ? Object.assign(json, r.deferred) : json }];
	});
}

/**
 * A recipient's output: the service's message with `accepted`, the batch ID, the text this recipient
 * receives (placeholders filled, as a dry run shows it) and what it costs (the service reports segments and credits only for the whole batch). The
 * spec's three fields make one fixed shape (about half the memory of a spread copy, for 100,000
 * outputs); the recipient's own number string when the service echoes the same number (one copy fewer).
 */
function acceptedJson(batchId: unknown, message: IDataObject, phoneNumber: string, stats: MessageStats, group: Group, text: string): IDataObject {
	const echoed = message.phoneNumber === undefined || message.phoneNumber === phoneNumber ? phoneNumber : message.phoneNumber;
	const { encoding, segments, credits } = stats;
	let fields = 0;
	for (const key in message) if (Object.prototype.hasOwnProperty.call(message, key)) fields++;
	let json: IDataObject;
	if (fields === 3 && message.messageId !== undefined && message.status !== undefined && message.phoneNumber !== undefined) {
		json = { accepted: true, batchId: batchId as string, messageId: message.messageId, phoneNumber: echoed, status: message.status, message: text, encoding, segments, credits };
	} else json = { accepted: true, batchId: batchId as string, ...message, phoneNumber: echoed, message: text, encoding, segments, credits };
	if (group.replaced) json.replacedCharacters = group.replaced as unknown as IDataObject[];
	return json;
}

/** A recipient the service refused in an accepted batch; version 2 words it as every service error (transport/errors.ts). */
function recipientFailure(ctx: IExecuteFunctions, r: Recipient, detail: IDataObject): ItemFailure {
	const error = (detail.error ?? {}) as IDataObject;
	const code = String(error.code ?? 'REJECTED');
	const said = String(error.message ?? 'rejected by the service');
	// A sender ID is approved per country: its refusal names the sender ID and the number's country.
	const title =
		code === 'INVALID_SENDER_ID'
			? senderRefusedTitle(String(r.sender ?? r.group.body.senderId ?? SERVICE.defaultSenderId), r.phoneNumber, countryName(r.phoneNumber))
			: `${TITLES[code] ?? 'The service refused the recipient'} (${r.phoneNumber})`;
	const refusal = titledErrors(ctx.getNode())
		? new NodeOperationError(ctx.getNode(), `${itemLead(r.itemIndex)}${title}`, {
				itemIndex: r.itemIndex,
				description: `The service said: ${said} (${code}).`,
			})
		: new NodeOperationError(ctx.getNode(), `${code} – ${said} (${r.phoneNumber})`, { itemIndex: r.itemIndex });
	if (titledErrors(ctx.getNode())) refusal.context.serviceMessage = said;
	const failure = failureOf(ctx, refusal, r.itemIndex);
	(failure.error as unknown as { errorResponse: IDataObject }).errorResponse = { code: error.code ?? 'REJECTED' };
	return failure;
}

/** A dry run's output of one recipient: the text it would receive (placeholders filled) and its cost. */
export function pricedRecipient(r: Recipient): IDataObject {
	const { body } = r.group;
	const variables = variablesOf(r);
	const stats = statsWith(r.group, variables);
	return {
		accepted: false,
		phoneNumber: r.phoneNumber,
		message: variables ? fillPlaceholders(body.message as string, variables) : body.message,
		senderId: r.sender ?? body.senderId ?? SERVICE.defaultSenderId,
		encoding: stats.encoding,
		segments: stats.segments,
		credits: stats.credits,
		sendAt: r.deferred?.scheduledAt ?? body.scheduledAt ?? 'now',
	};
}
