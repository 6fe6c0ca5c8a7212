import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { analyzeMessage, fillPlaceholders } from '../../rules/segments';
import { messageIdentities } from '../../sending/ledger';
import { finishSend, outputFailure, type ItemFailure } from '../../sending/outcomes';
import { sendOnce } from '../../sending/round';
import { getServiceCredentials, planLimits } from '../../transport/credentials';
import { errorCodeOf } from '../../transport/errors';
import { inWindow, requestWindow } from '../../transport/requestWindow';
import {
	checkBalanceField,
	defaultCountryOption,
	numberCheckOption,
	resendUnknownOutcomeOption,
	scheduledAtOption,
	senderIdLocator,
} from '../common.descriptions';
import { recipientPayload, sendChunk } from './bulkCalls';
import { recipientReader, type Group, type Recipient, type Slot } from './bulkRecipients';

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
			resendUnknownOutcomeOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['sendBulk'] } }, properties);

const readers = new WeakMap<IExecuteFunctions, (i: number) => Slot[]>();

/** One item's recipients (one, or its list), checked; nothing is sent. */
export async function prepare(this: IExecuteFunctions, i: number): Promise<Slot[]> {
	let read = readers.get(this);
	if (!read) readers.set(this, (read = recipientReader(this)));
	return read(i);
}

export async function send(this: IExecuteFunctions, prepared: Array<Slot[] | ItemFailure>): Promise<INodeExecutionData[]> {
	const slots = prepared.flatMap((p): Slot[] => (Array.isArray(p) ? p : [{ failure: p }]));
	const recipients = slots.flatMap((slot) => (slot.recipient ? [slot.recipient] : []));
	const limits = planLimits(await getServiceCredentials.call(this, 'apiKey'));
	const identities = messageIdentities(recipients.map(recipientPayload));
	hintDuplicates(this, recipients);
	recipients.forEach((r, n) => (r.identity = identities[n]));
	const outcomes = await sendOnce(
		this,
		recipients,
		{
			kind: 'apiKey',
			creditsNeeded: this.getNodeParameter('checkBalance', 0, false) ? creditsOf(recipients) : undefined,
			resendUnknown: this.getNodeParameter('options.resendUnknownOutcome', 0, false) as boolean,
			post: async (pending, settle) => {
				const chunks = chunksOf(pending, limits.recipientsPerCall);
				// Concurrently through the key's shared limiter, a bounded number at a time (see requestWindow).
				await inWindow(chunks.length, requestWindow(limits), async (n) => await sendChunk(this, chunks[n].group, chunks[n].recipients, settle));
			},
		},
		(settled) => {
			const byRecipient = new Map(recipients.map((r, n) => [r, settled[n]]));
			const failures: ItemFailure[] = [];
			let accepted = 0;
			const output = slots.map((slot): INodeExecutionData => {
				if (slot.failure) {
					failures.push(slot.failure);
					return outputFailure(this, slot.failure, slot.phoneNumber !== undefined ? { phoneNumber: String(slot.phoneNumber) } : {});
				}
				const recipient = slot.recipient!;
				const outcome = byRecipient.get(recipient)!;
				if (outcome.ok) {
					accepted++;
					return { json: outcome.json, pairedItem: { item: recipient.itemIndex } };
				}
				failures.push(outcome.failure);
				return outputFailure(this, outcome.failure, {
					phoneNumber: recipient.phoneNumber,
					errorCode: errorCodeOf(outcome.failure.error) ?? 'REJECTED',
				});
			});
			return finishSend(this, output, failures, accepted, 'recipient');
		},
	);
	return outcomes;
}

/** Duplicates stay messages of their own (as at the service): say so, since it is rarely meant. */
function hintDuplicates(ctx: IExecuteFunctions, recipients: Recipient[]): void {
	const repeated = recipients.length - new Set(recipients.map((r) => `${r.group.id}\u0000${r.phoneNumber}`)).size;
	if (repeated === 0) return;
	ctx.addExecutionHints({
		message: `${repeated} recipient${repeated === 1 ? '' : 's'} appear more than once with the same message: each appearance is sent (and charged) as its own SMS. Use a Remove Duplicates node before Send Bulk to send one.`,
		location: 'outputPane',
	});
}

/** Credits of every recipient's message, its placeholders filled (README → Check Balance). */
function creditsOf(recipients: Recipient[]): number {
	let needed = 0;
	for (const { group, variables } of recipients) {
		const text = group.body.message as string;
		if (variables && group.placeholders.length) needed += analyzeMessage(fillPlaceholders(text, variables)).credits;
		else needed += group.credits ??= analyzeMessage(text).credits;
	}
	return needed;
}

/** The pending recipients in calls of at most `perCall`, each call one group (one message body). */
function chunksOf(pending: Recipient[], perCall: number): Array<{ group: Group; recipients: Recipient[] }> {
	const groups = new Map<Group, Recipient[]>();
	for (const r of pending) {
		const members = groups.get(r.group);
		if (members) members.push(r);
		else groups.set(r.group, [r]);
	}
	const chunks: Array<{ group: Group; recipients: Recipient[] }> = [];
	for (const [group, members] of groups) {
		for (let start = 0; start < members.length; start += perCall) {
			chunks.push({ group, recipients: members.slice(start, start + perCall) });
		}
	}
	return chunks;
}
