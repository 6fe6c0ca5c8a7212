import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { parseItem } from '../../rules/fields';
import { checkPhone } from '../../rules/phone';
import { replaceLookalikes, type Gsm7Replacement } from '../../rules/gsm7';
import { analyzeMessage, type MessageStats } from '../../rules/segments';
import { futureTime, SMS_LABELS, smsSchema, smsSchemaAllowingPrivateReportHosts } from '../../rules/smsFields';
import { isFailure, type ItemFailure } from '../../sending/outcomes';
import { postEach } from '../../sending/postEach';
import { AUTOMATIC_SENDER } from '../../sending/policies/senderByCountry';
import { getServiceCredentials, isSandboxKey } from '../../transport/credentials';
import { SERVICE } from '../../transport/service';
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
import { perItemParameter } from '../parameters';
import { isV2 } from '../versions';
import { addSendHints } from './sendHints';
import { sendNamingSender } from './senderRefusal';

/** Recipient, text and sender: the same fields in Send and in Send and Wait for Delivery. */
export const messageFields: INodeProperties[] = [
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+254712345678',
		description: 'Recipient in E.164 format, or a national number when Default Country is set',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description:
			'Up to 1600 characters. A segment holds 160 GSM-7 characters, or 70 when the text has emoji or other Unicode; each segment costs one credit.',
		hint: 'The output shows the encoding, segments and credits of each message',
	},
	senderIdLocator(
		"Name shown as the sender. Leave empty for the service default (SVCSMS). Automatic (by Recipient's Country): an active sender ID approved for each number's country.",
		false,
		true,
	),
];

const properties: INodeProperties[] = [
	...messageFields,
	checkBalanceField('send'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Allow Private Delivery Report Hosts',
				name: 'allowPrivateReportHosts',
				type: 'boolean',
				default: false,
				description:
					'Whether to allow a Delivery Report URL on a private, loopback or link-local host (e.g. localhost, 127.0.0.1, 10.0.0.5, 169.254.169.254). Off, such a URL is refused before sending: the service posts reports from the internet and could never reach it.',
			},
			defaultCountryOption,
			{
				displayName: 'Delivery Report URL',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'https://n8n.example.com/webhook/…/svc-messaging',
				description:
					"Where the service posts this message's delivery reports, instead of the account's default webhook. Paste the Production URL of an SVC Messaging Trigger here.",
			},
			dryRunOption,
			idempotencyKeyOption,
			maxCreditsOption,
			numberCheckOption,
			{
				displayName: 'Reference',
				name: 'reference',
				type: 'string',
				default: '',
				description: 'Your own reference (e.g. an order number), returned in delivery reports',
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

export const description = updateDisplayOptions({ show: { resource: ['sms'], operation: ['send'] } }, properties);

export interface PreparedSms {
	body: IDataObject;
	stats: MessageStats;
	/** With Replace Look-Alike Characters on: what was replaced (possibly nothing). */
	replaced?: Gsm7Replacement[];
	/** Sender ID "Automatic (by Recipient's Country)": chosen by the send round */
	automaticSender?: boolean;
}

/**
 * Reads, normalises and checks one item's parameters; throws before anything is sent. Parameters
 * without expressions are read once, and when message, sender ID and options are the same as the
 * previous item's (the usual case) their checks are not repeated: only the phone number is.
 */
function smsPreparer(ctx: IExecuteFunctions): (i: number) => PreparedSms {
	const node = ctx.getNode();
	const readOptions = perItemParameter<IDataObject>(ctx, 'options', {});
	const readPhone = perItemParameter<unknown>(ctx, 'phoneNumber', '');
	const readMessage = perItemParameter<unknown>(ctx, 'message', '');
	const readSender = perItemParameter<string>(ctx, 'senderId', '', true);
	let last:
		| { message: unknown; sender: unknown; options: unknown; fields: IDataObject; stats: MessageStats; replaced?: Gsm7Replacement[]; automatic: boolean }
		| undefined;

	return (i) => {
		const options = readOptions(i);
		const phoneNumber = checkPhone(node, i, readPhone(i), options, 'mobile');
		const message = readMessage(i);
		const sender = readSender(i);
		if (!last || last.message !== message || last.sender !== sender || last.options !== options) {
			const swapped = options.replaceLookalikes === true && typeof message === 'string' ? replaceLookalikes(message) : undefined;
			const parsed = parseItem(
				node,
				options.allowPrivateReportHosts === true ? smsSchemaAllowingPrivateReportHosts : smsSchema,
				{
					message: swapped ? swapped.text : message,
					senderId: (sender !== AUTOMATIC_SENDER && sender) || undefined,
					reference: (options.reference as string) || undefined,
					webhookUrl: (options.webhookUrl as string) || undefined,
				},
				i,
				SMS_LABELS,
			);
			const scheduledAt = futureTime(ctx, options.scheduledAt, i);
			const fields: IDataObject = { message: parsed.message };
			for (const key of ['senderId', 'reference', 'webhookUrl'] as const) {
				if (parsed[key] !== undefined) fields[key] = parsed[key];
			}
			if (scheduledAt) fields.scheduledAt = scheduledAt;
			const automatic = sender === AUTOMATIC_SENDER;
			last = { message, sender, options, fields, stats: analyzeMessage(parsed.message), replaced: swapped?.replaced, automatic };
		}
		const prepared: PreparedSms = { body: { phoneNumber, ...last.fields }, stats: last.stats, replaced: last.replaced };
		if (last.automatic) prepared.automaticSender = true;
		return prepared;
	};
}

/** The run's reader of one item's message, checked (see smsPreparer); nothing is sent. */
export function preparer(this: IExecuteFunctions): (i: number) => PreparedSms {
	return smsPreparer(this);
}

export async function send(this: IExecuteFunctions, prepared: Array<PreparedSms | ItemFailure>): Promise<INodeExecutionData[]> {
	return await sendMessages(this, prepared);
}

export interface SendMessagesOptions {
	/** sent, but not part of the message's identity in the send ledger */
	extraBody?: IDataObject;
	/** the output field that gets the time the service accepted the message (Send and Wait counts its timeout from it) */
	acceptedAtField?: string;
	/** Send and Wait: the run is finished when the wait is (sending/sendRun.ts finishRun) */
	finishesLater?: boolean;
}

/**
 * Checks the balance when asked, adds the hints, and POSTs each prepared message once. `extraBody`
 * (the resume URL of "Send and Wait for Delivery") is sent but left out of the message's identity
 * in the send ledger: it differs between an execution and its retry, and the retry must still
 * recognise the message it already sent.
 */
export async function sendMessages(
	ctx: IExecuteFunctions,
	prepared: Array<PreparedSms | ItemFailure>,
	{ extraBody, acceptedAtField, finishesLater = false }: SendMessagesOptions = {},
): Promise<INodeExecutionData[]> {
	const sandbox = isSandboxKey(await getServiceCredentials.call(ctx, 'apiKey'));
	// Version 2 leaves out `characters`: the service's messageLength says the same.
	const characters = (stats: MessageStats) => (isV2(ctx) ? {} : { characters: stats.characters });
	const messages: string[] = [];
	let replacing = false;
	for (const p of prepared) {
		if (isFailure(p)) continue;
		messages.push(p.body.message as string);
		replacing ||= p.replaced !== undefined;
	}
	// Send Bulk does not wait for delivery: no use suggesting it to Send and Wait.
	addSendHints(ctx, messages, replacing, !finishesLater);
	return await postEach(ctx, prepared, {
		post: sendNamingSender(ctx.getNode()),
		noun: 'message',
		extraBody,
		finishesLater,
		accepted: ({ body, stats, replaced }, data) => ({
			accepted: true,
			...data,
			// What was sent, as sent: a stray character from the editor (e.g. ` }}`) shows here.
			message: body.message,
			encoding: stats.encoding,
			...characters(stats),
			...(replaced ? { replacedCharacters: replaced } : {}),
			...(body.reference ? { reference: body.reference } : {}),
			...(body.scheduledAt ? { scheduledAt: body.scheduledAt } : {}),
			...(sandbox ? { sandbox: true } : {}),
			...(acceptedAtField ? { [acceptedAtField]: new Date().toISOString() } : {}),
		}),
		creditsOf: ({ stats }) => stats.credits,
		recipientOf: ({ body }) => body.phoneNumber as string,
		automaticSender: ({ automaticSender }) => automaticSender === true,
		scheduledAtOf: ({ body }) => body.scheduledAt as string | undefined,
		scheduling: finishesLater ? 'noWait' : 'scheduledAt',
		price: ({ body, stats }) => ({
			accepted: false,
			phoneNumber: body.phoneNumber,
			message: body.message,
			senderId: body.senderId ?? SERVICE.defaultSenderId,
			encoding: stats.encoding,
			messageLength: stats.characters,
			segments: stats.segments,
			credits: stats.credits,
			sendAt: body.scheduledAt ?? 'now',
		}),
		identify: (sms, i) => ({ phoneNumber: sms ? sms.body.phoneNumber : ctx.getNodeParameter('phoneNumber', i, '') }),
		creditsNeeded: ctx.getNodeParameter('checkBalance', 0, false)
			? messages.reduce((sum, message) => sum + analyzeMessage(message).credits, 0)
			: undefined,
	});
}
