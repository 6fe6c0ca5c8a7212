import type { IDataObject } from 'n8n-workflow';

import { TRIGGER_LIMITS } from './limits';
import type { DeliveryReport } from './payload';

/**
 * One output item per delivery report: `event`, `timestamp` and the `data` fields side by side.
 * Fields the report leaves out are null, so every item has the same columns; `reasonCode` and
 * `reasonMessage` are present on `message.failed` items only.
 */
export function flattenReport(report: DeliveryReport, raw?: IDataObject): IDataObject {
	const { data } = report;
	const item: IDataObject = {
		event: report.event,
		timestamp: report.timestamp,
		messageId: data.messageId,
		batchId: data.batchId ?? null,
		phoneNumber: data.phoneNumber,
		status: data.status,
		senderId: data.senderId ?? null,
		reference: data.reference ?? null,
		deliveredAt: data.deliveredAt ?? null,
		creditsUsed: data.creditsUsed ?? null,
	};
	if (report.event === 'message.failed') {
		item.reasonCode = report.data.reason.code;
		item.reasonMessage = report.data.reason.message;
	}
	if (raw !== undefined) item.raw = raw;
	return item;
}

/** How deep `value` nests, counting up to `limit + 1` only (iteratively: a deep body must not overflow the stack). */
function depthExceeds(value: unknown, limit: number): boolean {
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length > 0) {
		const [current, depth] = stack.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth >= limit) return true;
		for (const child of Object.values(current as object)) stack.push([child, depth + 1]);
	}
	return false;
}

/**
 * "Include Raw Payload": the body as received, or a marker in its place when it nests deeper than
 * TRIGGER_LIMITS.rawPayloadMaxDepth or is larger than rawPayloadMaxBytes. n8n stores and copies
 * execution data recursively, so a body nested thousands of levels deep would make the execution
 * unreadable; the report itself (the flattened fields) is still output.
 */
export function boundedRawPayload(raw: Record<string, unknown>, bytes: number): IDataObject {
	const { rawPayloadMaxDepth, rawPayloadMaxBytes } = TRIGGER_LIMITS;
	const tooDeep = depthExceeds(raw, rawPayloadMaxDepth);
	if (!tooDeep && bytes <= rawPayloadMaxBytes) return raw as IDataObject;
	return {
		omitted: true,
		reason: tooDeep
			? `the body nests deeper than ${rawPayloadMaxDepth} levels`
			: `the body is larger than ${rawPayloadMaxBytes} bytes (${bytes})`,
	};
}
