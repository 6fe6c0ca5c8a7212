import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { reserveAgentMessages } from '../../aiTool/agentCap';
import { analyzeMessage, fillPlaceholders } from '../../rules/segments';
import { assertBalance } from '../../sending/balance';
import { messageIdentities } from '../../sending/ledger';
import { finishSend, outputFailure, type ItemFailure } from '../../sending/outcomes';
import { openLedger } from '../../sending/recovery';
import { getServiceCredentials, planLimits } from '../../transport/credentials';
import { serviceErrorCode } from '../../transport/errors';
import { connectKeyLimiter } from '../../transport/request';
import { inWindow, requestWindow } from '../../transport/requestWindow';
import {
	checkBalanceField,
	defaultCountryOption,
	numberCheckOption,
	resendUnknownOutcomeOption,
	scheduledAtOption,
	senderIdLocator,
} from '../common.descriptions';
import { recipientPayload, sendChunk, withoutSentBefore } from './bulkCalls';
import { readRecipients, type Group, type Recipient } from './bulkRecipients';

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
	const ledger = await openLedger(this);
	const recipients = slots.flatMap((slot) => (slot.recipient ? [slot.recipient] : []));
	const identities = messageIdentities(recipients.map(recipientPayload));
	recipients.forEach((r, n) => (r.identity = identities[n]));
	const groups = new Set<Group>();
	for (const r of await withoutSentBefore(this, ledger, recipients)) {
		r.group.recipients.push(r);
		groups.add(r.group);
	}
	// As an AI tool: the recipients this call sends to count against the execution's message cap (or it is refused).
	const posted = [...groups].flatMap((group) => group.recipients);
	const cap = reserveAgentMessages(this, posted.length);
	const chunks: Array<{ group: Group; recipients: Recipient[] }> = [];
	for (const group of groups) {
		for (let start = 0; start < group.recipients.length; start += limits.recipientsPerCall) {
			chunks.push({ group, recipients: group.recipients.slice(start, start + limits.recipientsPerCall) });
		}
	}
	if (chunks.length) await connectKeyLimiter.call(this);
	// Concurrently through the key's shared limiter, a bounded number at a time (see requestWindow).
	await inWindow(chunks.length, requestWindow(limits), async (n) => await sendChunk(this, chunks[n].group, chunks[n].recipients, ledger));
	cap.releaseRefused(posted.flatMap((r) => (r.outcome && !r.outcome.ok ? [r.outcome.failure.error] : [])));

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
	const result = finishSend(this, output, failures, accepted, 'recipient');
	await ledger.finish();
	return result;
}
