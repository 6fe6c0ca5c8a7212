import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHmac } from 'node:crypto';

import { DELIVERY_WAIT } from '../../transport/service';
import { splitOutcomes, WAIT_KEY, wakeAtOf, type WaitInfo } from './deliveryOutcome';

/**
 * The token of this execution's report URL: only the node (it holds the API key) can make it, and
 * it is known before any message id exists. n8n's resume URL alone is guessable (sequential ids).
 */
export function reportToken(apiKey: string, executionId: string): string {
	return createHmac('sha256', apiKey).update(`delivery-report|${executionId}`).digest('hex');
}

/**
 * Where the service posts this execution's delivery reports (the `webhookUrl` of each message):
 * `$execution.resumeUrl` with the node's path, then the token as a query parameter. n8n 2's resume
 * URL carries a query already (`?signature=…`); the path and token follow it unchanged, so n8n reads
 * the same signature as before and the token as a parameter of its own.
 */
export function reportUrlOf(ctx: IExecuteFunctions, apiKey: string): string {
	const resumeUrl = String(ctx.getWorkflowDataProxy(0).$execution.resumeUrl);
	const url = `${resumeUrl}/${DELIVERY_WAIT.resumePath}`;
	return `${url}${url.includes('?') ? '&' : '?'}${DELIVERY_WAIT.tokenParameter}=${reportToken(apiKey, ctx.getExecutionId())}`;
}

/** Proves that a call of the node to its resume URL (at `wakeAt`) comes from this node: keyed with the API key. */
export function deadlineSignature(apiKey: string, executionId: string, wakeAt: string): string {
	return createHmac('sha256', apiKey).update(`${executionId}|${wakeAt}`).digest('hex');
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
	apiKey: string,
): Promise<INodeExecutionData[][]> {
	// A new round: the resume claims of the last waiting state do not hold for this one.
	const round = (wait.round ?? 0) + 1;
	const wakeAt = wakeAtOf(items, wait.until, DELIVERY_WAIT.failureReasonGraceMs);
	const marked = items.map((item) => ({ ...item, json: { ...item.json, [WAIT_KEY]: { ...(item.json[WAIT_KEY] as WaitInfo), round, wakeAt } } }));
	const outputs = splitOutcomes(marked, false);
	const entry = ctx.getExecuteData();
	entry.data = { main: outputs };
	entry.metadata = { ...(entry.metadata ?? {}), forwardAllOutputs: true } as typeof entry.metadata;
	await ctx.putExecutionToWait(new Date(Date.parse(wait.until) + DELIVERY_WAIT.backstopMs));
	callAtDeadline(ctx, wakeAt, apiKey);
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
function callAtDeadline(ctx: IExecuteFunctions, wakeAt: string, apiKey: string): void {
	const executionId = ctx.getExecutionId();
	const key = `${executionId}|${wakeAt}`;
	if (scheduled.has(key)) return;
	scheduled.add(key);
	if (scheduled.size > DELIVERY_WAIT.maxTrackedWaits) scheduled.delete(scheduled.values().next().value as string);
	void callWhenDue({
		executionId,
		wakeAt,
		url: reportUrlOf(ctx, apiKey),
		headers: { [DELIVERY_WAIT.deadlineHeader]: deadlineSignature(apiKey, executionId, wakeAt) },
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
