import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { ItemFailure } from '../../sending/outcomes';
import { finishRun } from '../../sending/sendRun';
import { getServiceCredentials } from '../../transport/credentials';
import { itemLead, titledErrors } from '../../transport/errorTitles';
import { DELIVERY_WAIT } from './deliveryWait';
import {
	checkBalanceField,
	defaultCountryOption,
	numberCheckOption,
	replaceLookalikesOption,
	resendUnknownOutcomeOption,
} from '../common.descriptions';
import { doNotSendField, dryRunOption, idempotencyKeyOption, rememberKeyOption, maxCreditsOption, sendingHoursOption } from '../policyOptions';
import { ACCEPTED_AT, isWaiting, splitOutcomes, WAIT_KEY, waitInfoOf, type WaitInfo } from './deliveryOutcome';
import { lookUpWaiting, pollUntilFinal } from './deliveryPolling';
import { keepWaitSecret, newWaitSecret, reportUrlOf, waitForReports } from './deliveryWebhookWait';
import { messageFields, preparer as smsPreparer, sendMessages, type PreparedSms } from './send.operation';

const { timeoutSeconds, pollIntervalSeconds } = DELIVERY_WAIT;

const properties: INodeProperties[] = [
	...messageFields,
	{
		displayName: 'Wait Using',
		name: 'waitMode',
		type: 'options',
		options: [
			{
				name: 'Polling',
				value: 'polling',
				description: 'Look the messages up until they are final. Works without a public n8n URL; the execution keeps running while it waits.',
			},
			{
				name: 'Delivery Report (Webhook)',
				value: 'webhook',
				description:
					"The service posts each message's delivery report to this execution, which waits without running. Needs an n8n URL the service can reach.",
			},
		],
		default: 'polling',
	},
	{
		displayName:
			'The service must be able to reach this n8n (its WEBHOOK_URL) for the delivery reports. When n8n is not reachable from the internet, use Polling. With a Webhook Secret on the credential, reports without a valid signature are refused.',
		name: 'webhookNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { waitMode: ['webhook'] } },
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: timeoutSeconds.min, maxValue: timeoutSeconds.maxWebhook },
		default: 120, // DELIVERY_WAIT.timeoutSeconds.default (n8n's lint reads only a literal here)
		description: `How long to wait for the final status: ${timeoutSeconds.min} s to ${timeoutSeconds.maxPolling / 60} minutes with Polling, up to ${timeoutSeconds.maxWebhook / 3600} hours with Delivery Report. Messages not final by then go to "Not Delivered" with timedOut: true.`,
	},
	checkBalanceField('send'),
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
	rememberKeyOption,
			idempotencyKeyOption,
			maxCreditsOption,
			numberCheckOption,
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollInterval',
				type: 'number',
				typeOptions: { minValue: pollIntervalSeconds.min, maxValue: pollIntervalSeconds.max },
				default: 5, // DELIVERY_WAIT.pollIntervalSeconds.default
				description: 'Polling: the first lookup is made this long after sending; the interval then grows by half each time, up to a minute',
				displayOptions: { show: { '/waitMode': ['polling'] } },
			},
			{
				displayName: 'Reference',
				name: 'reference',
				type: 'string',
				default: '',
				description: 'Your own reference (e.g. an order number), returned in delivery reports',
			},
			rememberKeyOption,
			replaceLookalikesOption,
			sendingHoursOption(false),
			resendUnknownOutcomeOption,
		],
	},
	doNotSendField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['sms'], operation: ['sendAndWaitForDelivery'] } },
	properties,
);

/** The timeout, checked against the mode's bounds before anything is sent. */
function timeoutMs(ctx: IExecuteFunctions, mode: WaitInfo['mode']): number {
	const value = Number(ctx.getNodeParameter('timeout', 0, timeoutSeconds.default));
	const max = mode === 'polling' ? timeoutSeconds.maxPolling : timeoutSeconds.maxWebhook;
	if (!Number.isFinite(value) || value < timeoutSeconds.min || value > max) {
		throw new NodeOperationError(ctx.getNode(), `${titledErrors(ctx.getNode()) ? itemLead(0) : ''}"Timeout (Seconds)" must be between ${timeoutSeconds.min} and ${max} with ${mode === 'polling' ? 'Polling' : 'Delivery Report'} (got ${value})`, {
			itemIndex: 0,
			description: mode === 'polling' ? 'For longer waits, use "Wait Using: Delivery Report (Webhook)".' : undefined,
		});
	}
	return value * 1000;
}

/** The router passes this operation's outputs on as they are: "Delivered", "Not Delivered". */
export const multipleOutputs = true;

/**
 * Sends one SMS per item (as Send: validation first, the key's limiter, never twice on a retry),
 * then waits until every message is final or the timeout, and outputs each item on "Delivered" or
 * "Not Delivered". The node runs again when a waiting execution resumes (see deliveryReportWebhook).
 */

/** A waiting execution's messages come back as this node's input: they are sorted, not sent. */
export async function resume(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][] | undefined> {
	const wait = items.length ? waitInfoOf(items[0]) : undefined;
	return wait ? await resumed(this, items, wait) : undefined;
}

/** The same message fields and checks as Send. */
export const preparer = smsPreparer;

export async function send(this: IExecuteFunctions, prepared: Array<PreparedSms | ItemFailure>): Promise<INodeExecutionData[][]> {
	let mode = this.getNodeParameter('waitMode', 0, 'polling') as WaitInfo['mode'];
	const timeout = timeoutMs(this, mode);
	const apiKey = mode === 'webhook' ? await apiKeyOf(this) : '';
	const secret = mode === 'webhook' ? keepWaitSecret(this.getExecuteData(), newWaitSecret()) : '';
	const extraBody: IDataObject = mode === 'webhook' ? { webhookUrl: reportUrlOf(this, secret) } : {};
	// The timeout counts from each message's acceptance: sending many items through the key's limiter takes a while.
	// The run is finished when the wait is, not when the messages are posted: an execution that ends
	// while it waits (a crash, a timeout, Stop) must leave a retry finding what it sent.
	const sent = await sendMessages(this, prepared, {
		extraBody,
		acceptedAtField: ACCEPTED_AT,
		finishesLater: true,
	});
	// A dry run posted nothing: nothing to wait for (and no run to finish).
	if (sent.some((item) => item.json.dryRun === true)) return [sent, []];
	// Messages a failed run sent report to that run's URL: after a retry, look them up instead.
	if (sent.some((item) => item.json.alreadySent === true)) mode = 'polling';

	const sentAt = new Date().toISOString();
	const acceptedAt = sent.map((item) => (typeof item.json[ACCEPTED_AT] === 'string' ? (item.json[ACCEPTED_AT] as string) : sentAt));
	// Webhook mode waits as a whole: until the last message's timeout. Polling: each message until its own.
	const lastUntil = Math.max(...acceptedAt.map((at) => Date.parse(at) + timeout));
	const waiting = sent.map((item, index) => {
		const json = { ...item.json };
		delete json[ACCEPTED_AT];
		const since = acceptedAt[index];
		const until = new Date(mode === 'webhook' ? lastUntil : Date.parse(since) + timeout).toISOString();
		const info: WaitInfo = { mode, since, until, item: inputIndexOf(item, index) };
		return { ...item, json: { ...json, [WAIT_KEY]: info } };
	});
	if (!waiting.some(isWaiting)) return await finished(this, waiting);
	if (mode === 'webhook') return await waitForReports(this, waiting, waitInfoOf(waiting[0])!, apiKey);
	const interval = Number(this.getNodeParameter('options.pollInterval', 0, pollIntervalSeconds.default)) * 1000;
	return await finished(this, await pollUntilFinal(this, waiting, interval));
}

/** Every message is final (or its wait timed out): the outputs, and the run finished in the send ledger. */
async function finished(ctx: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	const outputs = splitOutcomes(items, true);
	await finishRun(ctx);
	return outputs;
}

/**
 * After a report or the timeout call: the messages still waiting are looked up once (their reports
 * may have met this execution running, or been lost), then sorted into the outputs, or the node
 * waits again for the others. Without a Webhook Secret on the credential, a report is not trusted
 * to say a status: it only woke the node, and the statuses come from these lookups; a FAILED
 * message then has no reason (as with Polling) rather than waiting for a report that cannot be trusted.
 */
async function resumed(ctx: IExecuteFunctions, items: INodeExecutionData[], wait: WaitInfo): Promise<INodeExecutionData[][]> {
	const credentials = await getServiceCredentials.call(ctx, 'apiKey');
	const signedReports = typeof credentials.webhookSecret === 'string' && credentials.webhookSecret !== '';
	const timedOut = Date.now() >= Date.parse(wait.until) - 1000;
	const current = items.some(isWaiting) ? await lookUpWaiting(ctx, items, signedReports && !timedOut) : items;
	if (timedOut || !current.some(isWaiting)) return await finished(ctx, current);
	return await waitForReports(ctx, current, wait, String(credentials.apiKey ?? ''));
}

function inputIndexOf(item: INodeExecutionData, index: number): number {
	const paired = item.pairedItem;
	if (typeof paired === 'number') return paired;
	const first = Array.isArray(paired) ? paired[0] : paired;
	return first?.item ?? index;
}

async function apiKeyOf(ctx: IExecuteFunctions): Promise<string> {
	return String((await getServiceCredentials.call(ctx, 'apiKey')).apiKey ?? '');
}
