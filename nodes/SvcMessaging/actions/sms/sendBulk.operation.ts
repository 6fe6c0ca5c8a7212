import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { keepFixedHint } from '../../rules/expressionPlaceholders';
import { unicodeCostNote } from '../../rules/segments';
import { finishSend, outputFailure, type ItemFailure } from '../../sending/outcomes';
import { sendOnce } from '../../sending/round';
import { openSendRun } from '../../sending/sendRun';
import { errorCodeOf } from '../../transport/errors';
import {
	checkBalanceField,
	defaultCountryOption,
	numberCheckOption,
	replaceLookalikesOption,
	resendUnknownOutcomeOption,
	scheduledAtOption,
	senderIdLocator,
} from '../common.descriptions';
import { doNotSendField, dryRunOption, idempotencyKeyOption, maxCreditsOption, rememberKeyOption, sendingHoursOption } from '../policyOptions';
import { placeholdersKept } from '../parameters';
import { bulkCallWindow, chunksOf, pricedRecipient, sendChunk } from './bulkCalls';
import { assignIdentities } from './bulkIdentities';
import { forEachSlot, recipientReader, statsOf, type ItemRecipients, type Recipient } from './bulkRecipients';

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
		hint: `Placeholders look like {{name}} with no spaces; every recipient needs a value for each one. ${keepFixedHint('name')}`,
	},
	senderIdLocator(
		"Name shown as the sender. Leave empty for the service default (SVCSMS). Automatic (by Recipient's Country): an active sender ID approved for each number's country.",
		false,
		true,
	),
	checkBalanceField('bulk send'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			defaultCountryOption,
			dryRunOption,
			idempotencyKeyOption,
			maxCreditsOption,
			numberCheckOption,
			{
				displayName: 'Reference',
				name: 'reference',
				type: 'string',
				default: '',
				description: 'Your reference for the batch, returned in delivery reports',
			},
			rememberKeyOption,
			replaceLookalikesOption,
			resendUnknownOutcomeOption,
			scheduledAtOption,
			sendingHoursOption(true),
		],
	},
	doNotSendField,
];

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['sendBulk'] } }, properties);

/** The run's reader of one item's recipients (one, or its list), checked; nothing is sent. */
export function preparer(this: IExecuteFunctions): (i: number) => ItemRecipients {
	const kept = placeholdersKept(this, { message: 'Message' });
	const read = recipientReader(this);
	return (i) => {
		kept(i);
		return read(i);
	};
}

/**
 * Every recipient was checked (prepare) before this sends anything. The chunks' bodies are built
 * one window of calls at a time (bulkCallWindow); what stays per recipient until the end is its
 * checked number, its ledger identity and its output.
 */
export async function send(this: IExecuteFunctions, prepared: Array<ItemRecipients | ItemFailure>): Promise<INodeExecutionData[]> {
	const recipients: Recipient[] = [];
	forEachSlot(prepared, (slot) => slot.recipient && recipients.push(slot.recipient));
	hintDuplicates(this, assignIdentities(recipients));
	hintUnicode(this, recipients);
	const run = await openSendRun(this, {
		kind: 'apiKey',
		creditsNeeded: this.getNodeParameter('checkBalance', 0, false) ? creditsOf(recipients) : undefined,
	});
	const { limits } = run;
	const settled = await sendOnce(run, recipients, {
		// Concurrently through the key's shared limiter, a bounded number of calls at a time.
		window: bulkCallWindow(limits),
		postsOf: (pending) => chunksOf(pending, limits.recipientsPerCall),
		unitsOf: (chunk) => chunk.members.slice(chunk.start, chunk.end),
		post: async (chunk, begin) => await sendChunk(this, chunk, begin),
		creditsOf: (r) => statsOf(r).credits,
		recipientOf: (r) => r.phoneNumber,
		automaticSender: (r) => r.group.automaticSender === true,
		scheduledAtOf: (r) => r.group.body.scheduledAt as string | undefined,
		price: pricedRecipient,
	});
	const failures: ItemFailure[] = [];
	const output: INodeExecutionData[] = [];
	let accepted = 0;
	let n = 0;
	// `settled` is in the order of `recipients`, which is the order of the slots.
	forEachSlot(prepared, (slot) => {
		if (!slot.recipient) {
			const failure = slot.failure!;
			failures.push(failure);
			output.push(outputFailure(run, failure, slot.phoneNumber !== undefined ? { phoneNumber: String(slot.phoneNumber) } : {}));
			return;
		}
		const recipient = slot.recipient;
		const outcome = settled[n++];
		if (outcome.ok) {
			accepted++;
			output.push({ json: outcome.json, pairedItem: { item: recipient.itemIndex } });
			return;
		}
		failures.push(outcome);
		output.push(
			outputFailure(run, outcome, {
				phoneNumber: recipient.phoneNumber,
				errorCode: errorCodeOf(outcome.error) ?? 'REJECTED',
			}),
		);
	});
	const result = finishSend(run, output, failures, accepted, 'recipient');
	await run.finish();
	return result;
}

/** Duplicates stay messages of their own (as at the service): say so, since it is rarely meant. */
function hintDuplicates(ctx: IExecuteFunctions, repeated: number): void {
	if (repeated === 0) return;
	ctx.addExecutionHints({
		message: `${repeated} recipient${repeated === 1 ? '' : 's'} appear more than once with the same message: each appearance is sent (and charged) as its own SMS. Use a Remove Duplicates node before Send Bulk to send one.`,
		location: 'outputPane',
	});
}

/** Credits of every recipient's message, its placeholders filled (README → Check Balance). */
function creditsOf(recipients: Recipient[]): number {
	let needed = 0;
	for (const r of recipients) needed += statsOf(r).credits;
	return needed;
}

/** The Unicode cost hint (rules/segments.ts), for the message as written (placeholders not filled). */
function hintUnicode(ctx: IExecuteFunctions, recipients: Recipient[]): void {
	const note = unicodeCostNote(
		recipients.map((r) => r.group.body.message as string),
		recipients.some((r) => r.group.replaced !== undefined),
	);
	if (note) ctx.addExecutionHints({ message: note, location: 'outputPane' });
}
