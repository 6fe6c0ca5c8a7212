import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertBalance } from '../../helpers/balance';
import { perItemParameter } from '../../helpers/parameters';
import { normalizePhoneNumber, type NumberCheck } from '../../helpers/phone';
import { analyzeMessage, fillPlaceholders, placeholdersOf } from '../../helpers/segments';
import { sendLedger, type SendLedger } from '../../helpers/sendLedger';
import { failureOf, finishSend, outputFailure, type ItemFailure } from '../../helpers/sending';
import { failItem } from '../../helpers/validation';
import { mayHaveBeenProcessed, serviceErrorCode } from '../../transport/errors';
import { inWindow, requestWindow } from '../../transport/limiter';
import { apiRequest, connectKeyLimiter, getServiceCredentials, planLimits, unwrap } from '../../transport/request';
import { SERVICE, SMS_LIMITS } from '../../transport/service';
import {
	checkBalanceField,
	defaultCountryOption,
	numberCheckOption,
	scheduledAtOption,
	senderIdLocator,
} from '../common.descriptions';
import { futureTime, senderIdSchema } from './send.operation';

const properties: INodeProperties[] = [
	{
		displayName: 'Recipients',
		name: 'recipientsSource',
		type: 'options',
		default: 'items',
		noDataExpression: true,
		options: [
			{
				name: 'One Recipient per Input Item',
				value: 'items',
				description: 'E.g. one row of a sheet per recipient; all items are sent together in as few calls as the plan allows.',
			},
			{
				name: 'List in Each Item',
				value: 'list',
				description: 'Each input item carries an array of recipients',
			},
		],
	},
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '={{ $json.phone }}',
		description: "The item's recipient, in E.164 format or national format with Default Country set",
		displayOptions: { show: { recipientsSource: ['items'] } },
	},
	{
		displayName: 'Variables',
		name: 'variablesSource',
		type: 'options',
		default: 'allFields',
		description: 'Values for the {{name}} placeholders of the message, for this recipient',
		displayOptions: { show: { recipientsSource: ['items'] } },
		options: [
			{ name: 'All Fields of the Item', value: 'allFields', description: '{{name}} takes the item field "name"' },
			{ name: 'Define Below', value: 'define' },
			{ name: 'None', value: 'none' },
		],
	},
	{
		displayName: 'Variable Values',
		name: 'variables',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add Variable',
		displayOptions: { show: { recipientsSource: ['items'], variablesSource: ['define'] } },
		options: [
			{
				name: 'variable',
				displayName: 'Variable',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'firstName' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '', placeholder: '={{ $json.first_name }}' },
				],
			},
		],
	},
	{
		displayName: 'Recipient List',
		name: 'recipients',
		type: 'json',
		required: true,
		default: '[{ "phoneNumber": "+254712345678", "variables": { "name": "Amina" } }]',
		description: 'An array of phone numbers, or of objects with phoneNumber and optional variables',
		displayOptions: { show: { recipientsSource: ['list'] } },
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		placeholder: 'Hello {{name}}, your order {{order}} has shipped',
		description:
			'Sent to every recipient. {{name}} placeholders are filled per recipient by the service; write them in a fixed (not expression) field.',
		hint: 'Placeholders look like {{name}} with no spaces; every recipient needs a value for each one',
	},
	senderIdLocator('Name shown as the sender. Leave empty for the service default (SVCSMS).'),
	checkBalanceField('bulk send'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			defaultCountryOption,
			numberCheckOption,
			{
				displayName: 'Reference',
				name: 'reference',
				type: 'string',
				default: '',
				description: 'Your reference for the batch, returned in delivery reports',
			},
			scheduledAtOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['sendBulk'] } }, properties);

interface Recipient {
	itemIndex: number;
	/** Position within the item's list (list mode), for messages and the retry ledger. */
	position: number;
	phoneNumber: string;
	variables?: Record<string, string>;
	group: Group;
	outcome?: Outcome;
}

interface Group {
	body: IDataObject;
	/** Short digest of the body, in the ledger key of each recipient. */
	id: string;
	placeholders: string[];
	recipients: Recipient[];
	/** Credits of the message when no placeholder is filled (the same for every recipient). */
	credits?: number;
}

type Outcome = { ok: true; json: IDataObject } | { ok: false; failure: ItemFailure; phoneNumber: string };

function readRecipients(ctx: IExecuteFunctions, items: INodeExecutionData[]) {
	const node = ctx.getNode();
	const source = ctx.getNodeParameter('recipientsSource', 0) as 'items' | 'list';
	const message = perItemParameter<string>(ctx, 'message', '');
	const senderId = perItemParameter<string>(ctx, 'senderId', '', true);
	const options = perItemParameter<IDataObject>(ctx, 'options', {});
	const phone = perItemParameter<unknown>(ctx, 'phoneNumber', '');
	const variablesSource = source === 'items' ? (ctx.getNodeParameter('variablesSource', 0) as string) : 'list';
	const defined = perItemParameter<{ variable?: Array<{ name: string; value: unknown }> }>(ctx, 'variables', {});
	const recipientList = perItemParameter<unknown>(ctx, 'recipients', []);

	const groups = new Map<string, Group>();
	const slots: Array<{ recipient?: Recipient; failure?: ItemFailure; phoneNumber?: unknown }> = [];
	// Message, sender ID and options are usually the same for every item (fixed values, read once):
	// they are then checked once, not once per item.
	let last: { text: unknown; sender: unknown; opts: unknown; group: Group } | undefined;

	for (let i = 0; i < items.length; i++) {
		try {
			const text = message(i);
			const rawSender = senderId(i);
			const opts = options(i);
			let group: Group;
			if (last && last.text === text && last.sender === rawSender && last.opts === opts) {
				group = last.group;
			} else {
				if (typeof text !== 'string' || text === '') failItem(node, i, '"Message" must not be empty');
				if ([...text].length > SMS_LIMITS.maxMessageCharacters) {
					failItem(node, i, `"Message" must be at most ${SMS_LIMITS.maxMessageCharacters} characters`);
				}
				const sender = rawSender || undefined;
				if (sender !== undefined && !senderIdSchema.safeParse(sender).success) {
					failItem(node, i, `"Sender ID" ${senderIdSchema.safeParse(sender).error?.issues[0].message}`);
				}
				const scheduledAt = futureTime(ctx, opts.scheduledAt, i);
				const body: IDataObject = { message: text };
				if (sender) body.senderId = sender;
				if (opts.reference) body.reference = String(opts.reference);
				if (scheduledAt) body.scheduledAt = scheduledAt;
				const groupKey = JSON.stringify(body);
				group = groups.get(groupKey) ?? {
					body,
					id: createHash('sha256').update(groupKey).digest('base64').slice(0, 12),
					placeholders: placeholdersOf(text),
					recipients: [],
				};
				groups.set(groupKey, group);
				last = { text, sender: rawSender, opts, group };
			}
			const { placeholders } = group;

			const entries =
				source === 'items'
					? [
							{
								phoneNumber: phone(i),
								variables:
									variablesSource === 'allFields'
										? fieldVariables(items[i].json, placeholders)
										: variablesFor(variablesSource, items[i].json, defined(i)),
							},
						]
					: listEntries(ctx, recipientList(i), i);
			entries.forEach((entry, position) => {
				const where = source === 'list' ? `recipient ${position}: ` : '';
				const normalized = normalizePhoneNumber(
					entry.phoneNumber,
					(opts.defaultCountry as string) || undefined,
					(opts.numberCheck as NumberCheck) ?? 'mobile',
				);
				try {
					if (!normalized.ok) failItem(node, i, `${where}"Phone Number" ${normalized.rule}`);
					const missing = placeholders.length ? placeholders.filter((name) => entry.variables?.[name] === undefined) : placeholders;
					if (missing.length) {
						failItem(node, i, `${where}no value for the placeholder(s) ${missing.map((m) => `{{${m}}}`).join(', ')} of "Message"`);
					}
					// Only the message's placeholders go to the service (and into the retry ledger's key).
					const variables = placeholders.length && entry.variables ? usedVariables(entry.variables, placeholders) : undefined;
					slots.push({
						recipient: { itemIndex: i, position, phoneNumber: normalized.e164, variables, group },
					});
				} catch (error) {
					slots.push({ failure: failureOf(ctx, error, i), phoneNumber: entry.phoneNumber });
				}
			});
		} catch (error) {
			slots.push({ failure: failureOf(ctx, error, i) });
		}
	}
	return { groups, slots };
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** "All Fields of the Item", reading only the fields the message's placeholders name. */
function fieldVariables(json: IDataObject, placeholders: string[]): Record<string, string> {
	const variables: Record<string, string> = {};
	for (const name of placeholders) {
		const value = hasOwn(json, name) ? json[name] : undefined;
		if (value !== undefined && value !== null && typeof value !== 'object') variables[name] = String(value);
	}
	return variables;
}

function usedVariables(all: Record<string, string>, placeholders: string[]): Record<string, string> {
	const variables: Record<string, string> = {};
	for (const name of placeholders) if (hasOwn(all, name)) variables[name] = all[name];
	return variables;
}

function variablesFor(
	mode: string,
	json: IDataObject,
	defined: { variable?: Array<{ name: string; value: unknown }> },
): Record<string, string> | undefined {
	if (mode === 'none') return undefined;
	const pairs: Array<[string, unknown]> =
		mode === 'define' ? (defined.variable ?? []).map((v) => [v.name, v.value]) : Object.entries(json);
	const variables: Record<string, string> = {};
	for (const [name, value] of pairs) {
		if (name && value !== undefined && value !== null && typeof value !== 'object') variables[name] = String(value);
	}
	return variables;
}

function listEntries(ctx: IExecuteFunctions, value: unknown, i: number) {
	let list = value;
	if (typeof list === 'string') {
		try {
			list = JSON.parse(list);
		} catch {
			failItem(ctx.getNode(), i, '"Recipient List" must be a JSON array');
		}
	}
	if (!Array.isArray(list)) failItem(ctx.getNode(), i, '"Recipient List" must be an array');
	if (list.length === 0) failItem(ctx.getNode(), i, '"Recipient List" must not be empty');
	return list.map((entry: unknown) =>
		typeof entry === 'string' || typeof entry === 'number'
			? { phoneNumber: entry as unknown, variables: undefined }
			: {
					phoneNumber: (entry as IDataObject)?.phoneNumber as unknown,
					variables: variablesFor('allFields', ((entry as IDataObject)?.variables ?? {}) as IDataObject, {}),
				},
	);
}

const SENT_MARKER_ITEM = -1;
const SENT_MARKER = 'sendBulk: sent';

/** The recipient in the send ledger: short, since the ledger keeps it after the execution. */
function ledgerKey(r: Recipient): string {
	const values = r.variables ? r.group.placeholders.map((name) => r.variables![name] ?? '').join('\u0001') : '';
	return `${r.position}\u0000${r.phoneNumber}\u0000${r.group.id}\u0000${values}`;
}

async function sendChunk(ctx: IExecuteFunctions, group: Group, chunk: Recipient[], ledger: SendLedger): Promise<void> {
	const body: IDataObject = {
		...group.body,
		recipients: chunk.map((r) => (r.variables ? { phoneNumber: r.phoneNumber, variables: r.variables } : { phoneNumber: r.phoneNumber })),
	};
	let data: IDataObject;
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
			if (mayHaveBeenProcessed(failure.error)) {
				ledger.set(r.itemIndex, ledgerKey(r), { outcome: 'unknown', message: failure.error.message, description: failure.error.description ?? undefined });
			}
			r.outcome = { ok: false, failure, phoneNumber: r.phoneNumber };
		});
		return;
	}
	const rejected = new Map<number, IDataObject>();
	for (const e of (data.errors as IDataObject[] | undefined) ?? []) rejected.set(Number(e.index), e);
	const messages = (data.messages as IDataObject[] | undefined) ?? [];
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
		ledger.set(r.itemIndex, ledgerKey(r), { outcome: 'accepted', json });
		r.outcome = { ok: true, json };
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

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const { slots } = readRecipients(this, items);
	const invalid = slots.filter((s) => s.failure).map((s) => s.failure!);
	if (invalid.length && !this.continueOnFail()) throw invalid[0].error;

	if (this.getNodeParameter('checkBalance', 0, false)) {
		let needed = 0;
		for (const { recipient } of slots) {
			if (!recipient) continue;
			const { group } = recipient;
			const text = group.body.message as string;
			if (recipient.variables && group.placeholders.length) {
				needed += analyzeMessage(fillPlaceholders(text, recipient.variables)).credits;
			} else {
				needed += group.credits ??= analyzeMessage(text).credits;
			}
		}
		await assertBalance(this, needed);
	}

	const credentials = await getServiceCredentials.call(this, 'apiKey');
	const limits = planLimits(credentials);
	const perCall = limits.recipientsPerCall;
	const ledger = sendLedger(this);
	// Recipients can be in the ledger only when this node already sent in this run (n8n's Retry On
	// Fail): only then is each one looked up (10,000 look-ups cost ~10 ms).
	const sentBefore = ledger.get(SENT_MARKER_ITEM, SENT_MARKER) !== undefined;
	const groups = new Set<Group>();
	const chunks: Array<{ group: Group; recipients: Recipient[] }> = [];

	for (const { recipient } of slots) {
		if (!recipient) continue;
		const known = sentBefore ? ledger.get(recipient.itemIndex, ledgerKey(recipient)) : undefined;
		if (known?.outcome === 'accepted') {
			recipient.outcome = { ok: true, json: known.json };
		} else if (known?.outcome === 'unknown') {
			const error = new NodeOperationError(this.getNode(), known.message, { itemIndex: recipient.itemIndex, description: known.description });
			recipient.outcome = { ok: false, failure: { itemIndex: recipient.itemIndex, error }, phoneNumber: recipient.phoneNumber };
		} else {
			recipient.group.recipients.push(recipient);
			groups.add(recipient.group);
		}
	}
	for (const group of groups.values()) {
		for (let start = 0; start < group.recipients.length; start += perCall) {
			chunks.push({ group, recipients: group.recipients.slice(start, start + perCall) });
		}
	}
	if (chunks.length) await connectKeyLimiter.call(this);
	// Concurrently through the key's shared limiter, a bounded number at a time (see requestWindow).
	try {
		await inWindow(chunks.length, requestWindow(limits), async (n) => await sendChunk(this, chunks[n].group, chunks[n].recipients, ledger));
	} finally {
		// After the recipients' entries: the ledger drops its oldest entries first.
		ledger.set(SENT_MARKER_ITEM, SENT_MARKER, { outcome: 'unknown', message: 'Send Bulk sent in this run' });
	}

	const failures: ItemFailure[] = [];
	let accepted = 0;
	const output = slots.map((slot): INodeExecutionData => {
		if (slot.failure) {
			failures.push(slot.failure);
			return outputFailure(this, slot.failure, slot.phoneNumber !== undefined ? { phoneNumber: String(slot.phoneNumber) } : {});
		}
		const outcome = slot.recipient!.outcome!;
		if (outcome.ok) {
			accepted++;
			return { json: outcome.json, pairedItem: { item: slot.recipient!.itemIndex } };
		}
		failures.push(outcome.failure);
		return outputFailure(this, outcome.failure, {
			phoneNumber: outcome.phoneNumber,
			errorCode: serviceErrorCode(outcome.failure.error) ?? 'REJECTED',
		});
	});
	return finishSend(this, output, failures, accepted, 'recipient');
}
