import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { createHash } from 'crypto';

import { parseItem } from '../../rules/fields';
import { checkPhone } from '../../rules/phone';
import { replaceLookalikes, type Gsm7Replacement } from '../../rules/gsm7';
import { analyzeMessage, fillPlaceholders, placeholdersOf, type MessageStats } from '../../rules/segments';
import { checkPlaceholderValues, filledMessageCheck, futureTime, recipientList, SMS_LABELS, smsSchema, type FilledMessageCheck } from '../../rules/smsFields';
import { failureOf, type ItemFailure } from '../../sending/outcomes';
import type { UnitOutcome } from '../../sending/stages/stage';
import { AUTOMATIC_SENDER } from '../../sending/policies/senderByCountry';
import { perItemParameter } from '../parameters';

/**
 * Send Bulk's parameter reading and validation: every item (or every entry of each item's list)
 * becomes a checked recipient in a group of recipients that share one message body, or a failure
 * naming the item, the field and the rule. Nothing here sends.
 */
export interface Recipient {
	itemIndex: number;
	phoneNumber: string;
	variables?: Record<string, string>;
	group: Group;
	/** What was sent to this recipient, numbered among repeats: its key in the send ledger. */
	identity: string;
	/** Set by the send round: what became of the recipient */
	outcome?: UnitOutcome;
	/** Set by the send round when Sending Hours defers this recipient (sending/round.ts) */
	deferred?: IDataObject;
	/** Set by the send round: the sender ID chosen for the recipient's country (Automatic) */
	sender?: string;
}

export interface Group {
	body: IDataObject;
	/** Short digest of the body, in the ledger key of each recipient. */
	id: string;
	placeholders: string[];
	/** The rules of an SMS for the text one recipient's values make. */
	checkFilled: FilledMessageCheck;
	/** Segments and credits of the message when no placeholder is filled (the same for every recipient). */
	stats?: MessageStats;
	/** With Replace Look-Alike Characters on: what was replaced in the message (possibly nothing). */
	replaced?: Gsm7Replacement[];
	/** Sender ID "Automatic (by Recipient's Country)": the send round chooses it per recipient */
	automaticSender?: boolean;
	/**
	 * "All Fields of the Item": the values, read again from the item when needed (the same values
	 * as when they were checked) instead of kept for every recipient until the send ends.
	 */
	fromItem?: (itemIndex: number) => Record<string, string>;
}

/** The recipient's placeholder values, if the message has any. */
export function variablesOf(r: Recipient): Record<string, string> | undefined {
	return r.variables ?? r.group.fromItem?.(r.itemIndex);
}

/** Encoding, segments and credits of the group's message with these placeholder values. */
export function statsWith(group: Group, variables: Record<string, string> | undefined): MessageStats {
	const text = group.body.message as string;
	if (variables && group.placeholders.length) return analyzeMessage(fillPlaceholders(text, variables));
	return (group.stats ??= analyzeMessage(text));
}

/** Encoding, segments and credits of the text this recipient receives (placeholders filled). */
export function statsOf(r: Recipient): MessageStats {
	return statsWith(r.group, r.group.placeholders.length ? variablesOf(r) : undefined);
}

export interface Slot {
	recipient?: Recipient;
	failure?: ItemFailure;
	phoneNumber?: unknown;
}

/**
 * One item's recipients: the recipient itself when the item is one valid recipient (the usual
 * case, kept without a list around it: 100,000 items are 100,000 of these until the send ends),
 * else its slots in order.
 */
export type ItemRecipients = Recipient | Slot[];

/** Each slot of the prepared items in order: an item that failed its checks is one failed slot. */
export function forEachSlot(prepared: Array<ItemRecipients | ItemFailure>, visit: (slot: Slot) => void): void {
	for (const item of prepared) {
		if (Array.isArray(item)) item.forEach(visit);
		else visit('group' in item ? { recipient: item } : { failure: item });
	}
}

/**
 * A reader of one item's recipients for this run: groups and the checks of message, sender ID and
 * options are shared between items. An item-level problem is thrown; a recipient's own problem
 * (list mode) is its slot's failure, and thrown too unless Continue On Fail.
 */
export function recipientReader(ctx: IExecuteFunctions): (i: number) => ItemRecipients {
	const node = ctx.getNode();
	const source = ctx.getNodeParameter('recipientsSource', 0) as 'items' | 'list';
	const message = perItemParameter<string>(ctx, 'message', '');
	const senderId = perItemParameter<string>(ctx, 'senderId', '', true);
	const options = perItemParameter<IDataObject>(ctx, 'options', {});
	const phone = perItemParameter<unknown>(ctx, 'phoneNumber', '');
	const variablesSource = source === 'items' ? (ctx.getNodeParameter('variablesSource', 0) as string) : 'list';
	const defined = perItemParameter<{ variable?: Array<{ name: string; value: unknown }> }>(ctx, 'variables', {});
	const recipientList = perItemParameter<unknown>(ctx, 'recipients', []);

	const items = ctx.getInputData();
	const groups = new Map<string, Group>();
	// Message, sender ID and options are usually the same for every item (fixed values, read once):
	// they are then checked once, not once per item.
	let last: { text: unknown; sender: unknown; opts: unknown; group: Group } | undefined;
	const newGroup = (body: IDataObject, key: string): Group => {
		const placeholders = placeholdersOf(body.message as string);
		// Values read again from an item were checked when it was prepared.
		const fromItem =
			variablesSource === 'allFields' && placeholders.length ? (n: number) => checkPlaceholderValues(node, n, '', placeholders, fieldVariables(items[n].json, placeholders)) : undefined;
		const checkFilled = filledMessageCheck(body.message as string);
		return { body, id: createHash('sha256').update(key).digest('base64').slice(0, 12), placeholders, checkFilled, fromItem };
	};

	return (i) => {
		const text = message(i);
		const rawSender = senderId(i);
		const automaticSender = rawSender === AUTOMATIC_SENDER;
		const opts = options(i);
		let group: Group;
		if (last && last.text === text && last.sender === rawSender && last.opts === opts) {
			group = last.group;
		} else {
			const swapped = opts.replaceLookalikes === true && typeof text === 'string' ? replaceLookalikes(text) : undefined;
			const checked = parseItem(
				node,
				smsSchema,
				{ message: swapped ? swapped.text : text, senderId: (!automaticSender && rawSender) || undefined, reference: opts.reference || undefined },
				i,
				SMS_LABELS,
			);
			const scheduledAt = futureTime(ctx, opts.scheduledAt, i);
			const body: IDataObject = { message: checked.message };
			if (checked.senderId) body.senderId = checked.senderId;
			if (checked.reference) body.reference = checked.reference;
			if (scheduledAt) body.scheduledAt = scheduledAt;
			const groupKey = JSON.stringify(body) + (automaticSender ? '\u0000automatic sender' : '');
			group = groups.get(groupKey) ?? newGroup(body, groupKey);
			if (swapped) group.replaced = swapped.replaced;
			if (automaticSender) group.automaticSender = true;
			groups.set(groupKey, group);
			last = { text, sender: rawSender, opts, group };
		}
		if (source === 'items') {
			const json = items[i].json;
			const variables = variablesSource === 'allFields' ? fieldVariables(json, group.placeholders) : variablesFor(variablesSource, json, defined(i));
			// One recipient per item, checked without a list around it (100,000 items: no array each).
			const slot = checkEntry(ctx, node, i, group, opts, { phoneNumber: phone(i), variables }, '');
			return slot.recipient ?? [slot];
		}
		const slots = listEntries(ctx, recipientList(i), i).map((entry, position) => checkEntry(ctx, node, i, group, opts, entry, `recipient ${position}: `));
		return slots.length === 1 && slots[0].recipient ? slots[0].recipient : slots;
	};
}

interface Entry {
	phoneNumber: unknown;
	variables: Record<string, unknown> | undefined;
}

/**
 * One recipient's checks: its slot holds the checked recipient, or (with Continue On Fail) its
 * failure; without Continue On Fail the failure is thrown.
 */
function checkEntry(ctx: IExecuteFunctions, node: INode, i: number, group: Group, opts: IDataObject, entry: Entry, where: string): Slot {
	const { placeholders } = group;
	try {
		const phoneNumber = checkPhone(node, i, entry.phoneNumber, opts, 'mobile', where);
		// Only the message's placeholders go to the service (and into the retry ledger's key).
		const variables = placeholders.length ? checkPlaceholderValues(node, i, where, placeholders, entry.variables) : undefined;
		if (variables) group.checkFilled(node, i, where, variables);
		// From the item's fields: read again when needed (group.fromItem), not kept.
		const kept = group.fromItem ? undefined : variables;
		// Every field the round sets is here from the start: one added later moves 100,000 objects' fields to a store of their own (~4 MB).
		return { recipient: { itemIndex: i, phoneNumber, variables: kept, group, identity: '', outcome: undefined } };
	} catch (error) {
		const failure = failureOf(ctx, error, i);
		if (!ctx.continueOnFail()) throw failure.error;
		return { failure, phoneNumber: entry.phoneNumber };
	}
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** "All Fields of the Item", reading only the fields the message's placeholders name (checked by checkPlaceholderValues). */
function fieldVariables(json: IDataObject, placeholders: string[]): Record<string, unknown> {
	const variables: Record<string, unknown> = {};
	for (const name of placeholders) {
		const value = hasOwn(json, name) ? json[name] : undefined;
		if (value !== undefined) variables[name] = value;
	}
	return variables;
}

function variablesFor(
	mode: string,
	json: IDataObject,
	defined: { variable?: Array<{ name: string; value: unknown }> },
): Record<string, unknown> | undefined {
	if (mode === 'none') return undefined;
	const pairs: Array<[string, unknown]> =
		mode === 'define' ? (defined.variable ?? []).map((v) => [v.name, v.value]) : Object.entries(json);
	const variables: Record<string, unknown> = {};
	for (const [name, value] of pairs) {
		if (name && value !== undefined) variables[name] = value;
	}
	return variables;
}

function listEntries(ctx: IExecuteFunctions, value: unknown, i: number) {
	const list = recipientList(ctx.getNode(), i, value);
	return list.map((entry: unknown) =>
		typeof entry === 'string' || typeof entry === 'number'
			? { phoneNumber: entry as unknown, variables: undefined }
			: {
					phoneNumber: (entry as IDataObject)?.phoneNumber as unknown,
					variables: variablesFor('allFields', ((entry as IDataObject)?.variables ?? {}) as IDataObject, {}),
				},
	);
}
