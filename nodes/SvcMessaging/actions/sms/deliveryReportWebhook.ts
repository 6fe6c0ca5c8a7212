import type { IDataObject, IExecuteData, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { timingSafeEqual } from 'node:crypto';

import { EDITION } from '../../platform/edition';
import { digest, sharedLimitOf } from '../../transport/redis';
import { openRedisStore } from '../../transport/redisStore';
import { SERVICE } from '../../transport/service';
import { DELIVERY_WAIT } from './deliveryWait';
import { parseDeliveryReport } from '../../trigger/payload';
import { hasValidSignature } from '../../trigger/signature';
import { rawBodyOf } from '../../trigger/webhook';
import { isFinal, isWaiting, statusOfEvent, waitInfoOf, withStatus, type WaitInfo } from './deliveryOutcome';
import { deadlineSignature, reportToken, waitSecretOf } from './deliveryWebhookWait';

/**
 * The execution's waiting node entry, as n8n hands it to the resume webhook. n8n has no public
 * accessor for it: the webhook context keeps it as `executeData`.
 */
function waitingEntry(ctx: IWebhookFunctions): IExecuteData | undefined {
	return (ctx as unknown as { executeData?: IExecuteData }).executeData;
}

function respond(ctx: IWebhookFunctions, statusCode: 400 | 401 | 409, error: string): IWebhookResponseData {
	ctx.getResponseObject().status(statusCode).json({ received: false, error });
	return { noWebhookResponse: true };
}

/** 200, and the execution keeps waiting. */
function keepWaiting(ignored: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored } };
}

/**
 * Waiting states already resumed. n8n checks that a waiting execution is not running before it
 * resumes it, but two reports arriving together both read it as waiting and would run the node
 * twice on the same state (seen: the execution then hangs as "running"). So each waiting state
 * (execution and round) is resumed once: the second report gets a 409, the service delivers it
 * again later, and by then it meets the execution running, waiting again (a new round) or finished.
 * The resumed node looks the other messages up itself. Claims are kept in this process and, with
 * the credential's shared Redis, in Redis (queue mode: several webhook processes); they lapse
 * after DELIVERY_WAIT.resumeClaimMs, so a resume that n8n failed to start can be claimed again.
 * When Redis does not answer, the claim of this process stands alone rather than refusing: a
 * refused wake-up call would leave the messages unsorted, while a second process resuming the
 * same state in that window still meets n8n's own "running" check.
 */
const claimed = new Map<string, number>();

function claimInProcess(waitingState: string, now: number): boolean {
	// Insertion order is claim order: the lapsed ones are at the front.
	for (const [state, at] of claimed) {
		if (now - at <= DELIVERY_WAIT.resumeClaimMs && claimed.size <= DELIVERY_WAIT.maxTrackedWaits) break;
		claimed.delete(state);
	}
	if (claimed.has(waitingState)) return false;
	claimed.set(waitingState, now);
	return true;
}

async function claimResume(credentials: IDataObject, executionId: string, wait: WaitInfo): Promise<boolean> {
	const waitingState = `${executionId}|${wait.round ?? 0}`;
	if (!claimInProcess(waitingState, Date.now())) return false;
	const shared = sharedLimitOf(credentials);
	if (!shared) return true;
	try {
		const store = await openRedisStore(shared, 'the delivery-wait claims');
		const key = store.key(`resume:${digest(waitingState)}`);
		if ((await store.once(async (client) => await client.set(key, '1', 'PX', DELIVERY_WAIT.resumeClaimMs, 'NX'))) === 'OK') return true;
	} catch {
		return true; // Redis unreachable or silent: this process's claim holds (see above).
	}
	claimed.delete(waitingState);
	return false;
}

/**
 * Runs the node again with the messages as they are now. n8n resumes a waiting node as "disabled",
 * passing its input through (n8n 1: to the first output only); the node instead sorts the messages
 * into "Delivered" and "Not Delivered" itself, or waits again for the others.
 */
function resume(entry: IExecuteData, items: INodeExecutionData[]): IWebhookResponseData {
	entry.node.disabled = false;
	return { webhookResponse: { received: true }, workflowData: [items] };
}

function sameHex(a: string, b: string): boolean {
	return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Delivery reports of "Send and Wait for Delivery", posted by the service to the report URL the node
 * sent with each message. A call without that URL's token gets a 401 and changes nothing. A final
 * report (delivered, failed, expired) of one of the execution's messages resumes it: with a Webhook
 * Secret on the credential and a valid signature, with the report's status; without one, only to
 * look the messages up (an unsigned report never sorts a message on its own say-so). Pending/sent
 * reports, other messages' reports and repeats get a 200 and it keeps waiting; a bad signature
 * gets a 401. The node's own call at the wake time resumes it too.
 */
export async function handleWaitingReport(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const credentials = (await this.getCredentials(EDITION.apiKeyCredential.name)) as IDataObject;
	const executionId = this.getExecutionId() ?? '';
	const entry = waitingEntry(this);
	// The wait's own secret: the API key may have been replaced since the node sent.
	const waitKey = waitSecretOf(entry, String(credentials.apiKey ?? ''));
	// First: only the URL the node sent with its messages (and its own wake-up call) may touch this execution.
	const query = this.getQueryData() as IDataObject;
	if (!sameHex(String(query[DELIVERY_WAIT.tokenParameter] ?? ''), reportToken(waitKey, executionId))) {
		return respond(this, 401, 'Invalid or missing wait token');
	}
	const items = (entry?.data.main ?? []).flatMap((output) => output ?? []);
	const wait = items.length ? waitInfoOf(items[0]) : undefined;
	if (!entry || !wait) return keepWaiting('no messages are waiting here');

	const deadlineCall = this.getHeaderData()[DELIVERY_WAIT.deadlineHeader];
	if (typeof deadlineCall === 'string') {
		const signed = (at: string) => deadlineSignature(waitKey, executionId, at);
		// This round's wake time, or the timeout (a call scheduled in an earlier round).
		if (![wait.wakeAt ?? wait.until, wait.until].some((at) => sameHex(deadlineCall, signed(at)))) {
			return respond(this, 401, 'Invalid timeout signature');
		}
		if (!(await claimResume(credentials, executionId, wait))) return respond(this, 409, 'The execution is resuming; try again');
		return resume(entry, items);
	}

	const rawBody = await rawBodyOf(this);
	if (!rawBody?.length) return respond(this, 400, 'The body is empty');
	const secret = typeof credentials.webhookSecret === 'string' ? credentials.webhookSecret : '';
	if (secret && !hasValidSignature(rawBody, this.getHeaderData()[SERVICE.signatureHeader], secret)) {
		return respond(this, 401, 'Missing or invalid signature');
	}
	const parsed = parseDeliveryReport(rawBody);
	if (parsed.kind === 'invalid') return respond(this, 400, parsed.message);
	if (parsed.kind === 'unknownEvent') return keepWaiting('event not supported');

	const { data, event } = parsed.report;
	const index = items.findIndex((item) => item.json.messageId === data.messageId);
	if (index < 0) return keepWaiting('not a message of this execution');
	if (!isWaiting(items[index])) return keepWaiting('the message is final already');
	const status = statusOfEvent(event);
	if (!isFinal(status)) return keepWaiting('not a final status');

	if (!(await claimResume(credentials, executionId, wait))) return respond(this, 409, 'The execution is resuming; try again');
	// Unsigned (no Webhook Secret): the report only wakes the node, which looks the messages up.
	if (!secret) return resume(entry, items);
	const updated = [...items];
	updated[index] = withStatus(items[index], {
		status,
		deliveredAt: data.deliveredAt ?? undefined,
		reason: 'reason' in data ? data.reason : undefined,
	});
	return resume(entry, updated);
}
