import type { IDataObject, IExecuteData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHmac, randomBytes } from 'node:crypto';

import { DELIVERY_WAIT } from './deliveryWait';
import { splitOutcomes, WAIT_KEY, wakeAtOf, type WaitInfo } from './deliveryOutcome';

/**
 * The key of a waiting execution's report token and wake-up signature: a random secret made when
 * the node sends, kept in the waiting node's entry of n8n's execution stack (its metadata, saved
 * with the waiting execution and handed back to the resume webhook and the resumed node), never in
 * an item: n8n passes a waiting node's items on when only its own timer resumes it. So a waiting
 * execution does not depend on the API key, which the user may rotate while it waits.
 */
const WAIT_SECRET = 'svcDeliveryWaitSecret';

export function newWaitSecret(): string {
	return randomBytes(32).toString('hex');
}

/** Keeps `secret` in the node's stack entry, before the messages carry its token, and returns it. */
export function keepWaitSecret(entry: IExecuteData, secret: string): string {
	entry.metadata = { ...(entry.metadata ?? {}), [WAIT_SECRET]: secret } as typeof entry.metadata;
	return secret;
}

/**
 * The waiting execution's secret; for an execution put to wait by a version before the secret,
 * the credential's API key, with which its tokens were made (they resume while the key is unchanged).
 */
export function waitSecretOf(entry: IExecuteData | undefined, apiKey: string): string {
	const secret = (entry?.metadata as IDataObject | undefined)?.[WAIT_SECRET];
	return typeof secret === 'string' && secret !== '' ? secret : apiKey;
}

/**
 * The token of this execution's report URL: only the node (it holds the wait's secret) can make
 * it, and it is known before any message id exists. n8n's resume URL alone is guessable (sequential ids).
 */
export function reportToken(secret: string, executionId: string): string {
	return createHmac('sha256', secret).update(`delivery-report|${executionId}`).digest('hex');
}

/**
 * Where the service posts this execution's delivery reports (the `webhookUrl` of each message):
 * `$execution.resumeUrl` with the node's path, then the token as a query parameter. n8n 2's resume
 * URL carries a query already (`?signature=…`); the path and token follow it unchanged, so n8n reads
 * the same signature as before and the token as a parameter of its own.
 */
export function reportUrlOf(ctx: IExecuteFunctions, secret: string): string {
	const resumeUrl = String(ctx.getWorkflowDataProxy(0).$execution.resumeUrl);
	const url = `${resumeUrl}/${DELIVERY_WAIT.resumePath}`;
	return `${url}${url.includes('?') ? '&' : '?'}${DELIVERY_WAIT.tokenParameter}=${reportToken(secret, ctx.getExecutionId())}`;
}

/** Proves that a call of the node to its resume URL (at `wakeAt`) comes from this node: keyed with the wait's secret. */
export function deadlineSignature(secret: string, executionId: string, wakeAt: string): string {
	return createHmac('sha256', secret).update(`${executionId}|${wakeAt}`).digest('hex');
}

/**
 * Webhook mode: puts the execution to wait (n8n's waiting executions; the worker is free) until a
 * final delivery report arrives at the resume URL, or the timeout.
 *
 * The items go into the waiting node's input as "Delivered" / "Not Delivered" (pending ones as
 * timed out): the report webhook reads them there, and they are what n8n passes on if only its
 * own timer resumes the execution (n8n 2 passes both outputs on; n8n 1 only the first, see
 * README → Send and Wait for Delivery). The node's own call at the timeout avoids that timer.
 */
export async function waitForReports(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	wait: WaitInfo,
	/** the credential's key: it keys only the tokens of executions put to wait before the wait secret */
	apiKey: string,
): Promise<INodeExecutionData[][]> {
	// A new round: the resume claims of the last waiting state do not hold for this one.
	const round = (wait.round ?? 0) + 1;
	const wakeAt = wakeAtOf(items, wait.until, DELIVERY_WAIT.failureReasonGraceMs);
	const marked = items.map((item) => ({ ...item, json: { ...item.json, [WAIT_KEY]: { ...(item.json[WAIT_KEY] as WaitInfo), round, wakeAt } } }));
	const outputs = splitOutcomes(marked, false);
	const entry = ctx.getExecuteData();
	const secret = waitSecretOf(entry, apiKey);
	entry.data = { main: outputs };
	entry.metadata = { ...(entry.metadata ?? {}), forwardAllOutputs: true } as typeof entry.metadata;
	await ctx.putExecutionToWait(new Date(Date.parse(wait.until) + DELIVERY_WAIT.backstopMs));
	callAtDeadline(ctx, wakeAt, secret);
	return outputs;
}

/** Wake-up calls scheduled in this process (a repeat of the same call is not scheduled twice); bounded, oldest dropped. */
const scheduled = new Set<string>();

/** What a wake-up call needs, and nothing of the run: it may wait up to 24 hours. */
interface DeadlineCall {
	executionId: string;
	wakeAt: string;
	url: string;
	headers: IDataObject;
	/** n8n's request helper: a module function, it holds no execution data */
	request: IExecuteFunctions['helpers']['httpRequest'];
	logger: IExecuteFunctions['logger'];
}

/**
 * At `wakeAt` (the timeout, or a FAILED message's grace end), this process posts to the execution's
 * resume URL so that the node runs again and sorts the messages into its outputs (n8n's timer alone
 * would not run it). Once per execution, time and process; a call that meets a running execution
 * (a report being handled) is repeated. Only the call's URL, headers and n8n's request function are
 * kept until then, not the node's context (its input items and run data).
 */
function callAtDeadline(ctx: IExecuteFunctions, wakeAt: string, secret: string): void {
	const executionId = ctx.getExecutionId();
	const key = `${executionId}|${wakeAt}`;
	if (scheduled.has(key)) return;
	scheduled.add(key);
	if (scheduled.size > DELIVERY_WAIT.maxTrackedWaits) scheduled.delete(scheduled.values().next().value as string);
	void callWhenDue({
		executionId,
		wakeAt,
		url: reportUrlOf(ctx, secret),
		headers: { [DELIVERY_WAIT.deadlineHeader]: deadlineSignature(secret, executionId, wakeAt) },
		request: ctx.helpers.httpRequest,
		logger: ctx.logger,
	}).finally(() => scheduled.delete(key));
}

async function callWhenDue(call: DeadlineCall): Promise<void> {
	await sleep(Math.max(0, Date.parse(call.wakeAt) - Date.now()));
	let failure = '';
	for (let attempt = 1; attempt <= DELIVERY_WAIT.deadlineAttempts; attempt++) {
		try {
			await call.request({ method: 'POST', url: call.url, headers: call.headers, body: { event: 'wait.timeout' }, json: true });
			return;
		} catch (error) {
			failure = (error as Error).message;
			// 409: finished (a report came first: nothing left to do) or running (a report is being handled: try again).
			if (statusOf(error) !== 409) break;
			const answer = error as { cause?: unknown; response?: { data?: unknown } };
			if (/finished/i.test(`${failure} ${JSON.stringify(answer.cause ?? answer.response?.data ?? '')}`)) return;
			await sleep(DELIVERY_WAIT.deadlineRetryMs);
		}
	}
	call.logger.warn(`SVC Messaging: the node's own call to the resume URL of execution ${call.executionId} failed; a report or n8n's timer resumes it`, { error: failure });
}

function statusOf(error: unknown): number | undefined {
	const e = error as { httpCode?: unknown; response?: { status?: unknown }; cause?: { response?: { status?: unknown } } };
	const status = Number(e.httpCode ?? e.response?.status ?? e.cause?.response?.status);
	return Number.isFinite(status) ? status : undefined;
}
