import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { getMessage } from '../../api/sms';
import { DELIVERY_WAIT } from '../../transport/service';
import { afterFailedLookup, isWaiting, withStatus } from './deliveryOutcome';

/**
 * Looks up each message that is not final yet (GET /api/sms/messages/:id, through the key's
 * limiter like every request, so lookups never cause a 429 and take turns with sends). A lookup
 * that fails leaves the message waiting; it is tried again next round.
 */
export async function lookUpWaiting(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	/** webhook mode: a FAILED message waits a while for its report, which carries the reason (afterFailedLookup) */
	awaitFailureReports = false,
): Promise<INodeExecutionData[]> {
	return await Promise.all(
		items.map(async (item, i) => {
			if (!isWaiting(item)) return item;
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
		}),
	);
}

/**
 * Polling mode: waits in this execution, looking messages up with a growing interval (first after
 * `firstIntervalMs`, then ×1.5 up to a minute), until every message is final or `until` passes;
 * the last lookup is made at `until`.
 */
export async function pollUntilFinal(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	until: number,
	firstIntervalMs: number,
): Promise<INodeExecutionData[]> {
	let current = items;
	let interval = firstIntervalMs;
	while (current.some(isWaiting)) {
		const left = until - Date.now();
		if (left <= 0) break;
		await sleep(Math.min(interval, left));
		current = await lookUpWaiting(ctx, current);
		interval = Math.min(interval * DELIVERY_WAIT.pollBackoff, DELIVERY_WAIT.maxPollIntervalMs);
	}
	return current;
}
