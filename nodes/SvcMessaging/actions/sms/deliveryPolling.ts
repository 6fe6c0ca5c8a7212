import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { getMessage } from '../../api/sms';
import { inWindow, sendWindow } from '../../sending/window';
import { getServiceCredentials, planLimits } from '../../transport/credentials';
import { DELIVERY_WAIT } from './deliveryWait';
import { afterFailedLookup, isWaiting, waitInfoOf, withStatus } from './deliveryOutcome';

/**
 * Looks up each message that is not final yet (GET /api/sms/messages/:id, through the key's
 * limiter like every request, so lookups never cause a 429 and take turns with sends), a bounded
 * window at a time (sending/window.ts), not a promise and limiter job per message. A lookup that
 * fails leaves the message waiting; it is tried again next round.
 */
export async function lookUpWaiting(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	/** webhook mode: a FAILED message waits a while for its report, which carries the reason (afterFailedLookup) */
	awaitFailureReports = false,
	/** polling: only the messages still in their wait (or never looked up) */
	shouldLookUp: (item: INodeExecutionData, index: number) => boolean = () => true,
): Promise<INodeExecutionData[]> {
	const window = sendWindow(planLimits(await getServiceCredentials.call(ctx, 'apiKey')));
	return await inWindow(items.length, window, async (i) => {
		const item = items[i];
		if (!isWaiting(item) || !shouldLookUp(item, i)) return item;
		try {
			const message = await getMessage(ctx, String(item.json.messageId), i);
			if (typeof message?.status !== 'string') return item;
			if (awaitFailureReports && message.status === 'FAILED') return afterFailedLookup(item, message, DELIVERY_WAIT.failureReasonGraceMs);
			return withStatus(item, message);
		} catch (error) {
			ctx.logger.debug(`SVC Messaging: looking up message ${String(item.json.messageId)} failed; trying again`, {
				error: (error as Error).message,
			});
			return item;
		}
	});
}

/**
 * Polling mode: waits in this execution, looking messages up with a growing interval (first after
 * `firstIntervalMs`, then ×1.5 up to a minute), until every message is final or its own timeout
 * (`until` of its wait, counted from its acceptance) has passed. Every message is looked up at
 * least once, the last time at or after its timeout, so a message on "Not Delivered" with
 * `timedOut` carries the last status a lookup saw.
 */
export async function pollUntilFinal(ctx: IExecuteFunctions, items: INodeExecutionData[], firstIntervalMs: number): Promise<INodeExecutionData[]> {
	const untilOf = (item: INodeExecutionData) => Date.parse(waitInfoOf(item)?.until ?? '') || 0;
	const lookedUpAfterTimeout = new Set<number>();
	const open = (item: INodeExecutionData, i: number) => isWaiting(item) && !lookedUpAfterTimeout.has(i);
	let current = items;
	let interval = firstIntervalMs;
	while (current.some(open)) {
		const now = Date.now();
		const nextTimeout = Math.min(...current.filter(open).map(untilOf));
		await sleep(Math.max(0, Math.min(interval, nextTimeout - now)));
		const lookupStarted = Date.now();
		const due = new Set(current.map((item, i) => (open(item, i) ? i : -1)).filter((i) => i >= 0));
		current = await lookUpWaiting(ctx, current, false, (_item, i) => due.has(i));
		for (const i of due) if (untilOf(current[i]) <= lookupStarted) lookedUpAfterTimeout.add(i);
		interval = Math.min(interval * DELIVERY_WAIT.pollBackoff, DELIVERY_WAIT.maxPollIntervalMs);
	}
	return current;
}
