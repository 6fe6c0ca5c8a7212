import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHmac } from 'node:crypto';

import { DELIVERY_WAIT } from '../../transport/service';
import { splitOutcomes, WAIT_KEY, wakeAtOf, type WaitInfo } from './deliveryOutcome';

/** Where the service posts this execution's delivery reports (the `webhookUrl` of each message). */
export function reportUrlOf(ctx: IExecuteFunctions): string {
	const resumeUrl = String(ctx.getWorkflowDataProxy(0).$execution.resumeUrl);
	return `${resumeUrl}/${DELIVERY_WAIT.resumePath}`;
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

const scheduled = new Set<string>();
const DEADLINE_ATTEMPTS = 5;
const DEADLINE_RETRY_MS = 3_000;

/**
 * At `wakeAt` (the timeout, or a FAILED message's grace end), this process posts to the execution's
 * resume URL so that the node runs again and sorts the messages into its outputs (n8n's timer alone
 * would not run it). Once per execution, time and process; a call that meets a running execution
 * (a report being handled) is repeated.
 */
function callAtDeadline(ctx: IExecuteFunctions, wakeAt: string, apiKey: string): void {
	const executionId = ctx.getExecutionId();
	const call = `${executionId}|${wakeAt}`;
	if (scheduled.has(call)) return;
	scheduled.add(call);
	const url = reportUrlOf(ctx);
	const headers: IDataObject = { [DELIVERY_WAIT.deadlineHeader]: deadlineSignature(apiKey, executionId, wakeAt) };
	void (async () => {
		await sleep(Math.max(0, Date.parse(wakeAt) - Date.now()));
		let failure = '';
		for (let attempt = 1; attempt <= DEADLINE_ATTEMPTS; attempt++) {
			try {
				await ctx.helpers.httpRequest({ method: 'POST', url, headers, body: { event: 'wait.timeout' }, json: true });
				failure = '';
				break;
			} catch (error) {
				failure = (error as Error).message;
				// 409: finished (a report came first: nothing left to do) or running (a report is being handled: try again).
				if (statusOf(error) === 409 && /finished/i.test(JSON.stringify((error as { cause?: unknown }).cause ?? failure))) failure = '';
				if (statusOf(error) !== 409 || !failure) break;
				await sleep(DEADLINE_RETRY_MS);
			}
		}
		scheduled.delete(call);
		if (failure) {
			ctx.logger.warn(`SVC Messaging: the node's own call to the resume URL of execution ${executionId} failed; a report or n8n's timer resumes it`, { error: failure });
		}
	})();
}

function statusOf(error: unknown): number | undefined {
	const e = error as { httpCode?: unknown; response?: { status?: unknown }; cause?: { response?: { status?: unknown } } };
	const status = Number(e.httpCode ?? e.response?.status ?? e.cause?.response?.status);
	return Number.isFinite(status) ? status : undefined;
}
