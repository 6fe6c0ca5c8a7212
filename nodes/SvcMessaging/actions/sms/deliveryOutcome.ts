import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/**
 * The outcome of "Send and Wait for Delivery", one item per input item. DELIVERED, FAILED and
 * EXPIRED are final (spec: SMS message status); PENDING and SENT are not.
 */
export const FINAL_STATUSES = ['DELIVERED', 'FAILED', 'EXPIRED'] as const;

export function isFinal(status: unknown): boolean {
	return (FINAL_STATUSES as readonly unknown[]).includes(status);
}

/** The status of a report's event (`message.delivered` → DELIVERED). */
export function statusOfEvent(event: string): string {
	return event.replace(/^message\./, '').toUpperCase();
}

/**
 * What the node keeps about each message while it waits, in the item it will output: the send
 * result plus `status` and, once known, `deliveredAt` and `reason`. `wait` says until when and how
 * it waits; it is removed from the items the node finally outputs.
 */
export interface WaitInfo {
	mode: 'webhook' | 'polling';
	/** ISO 8601: when the wait times out */
	until: string;
	/** ISO 8601: when the service accepted the message (its timeout counts from then) */
	since: string;
	/** webhook mode: which waiting state this is (1 when first put to wait, +1 each time it waits again) */
	round?: number;
	/**
	 * The input item this message came from. n8n renumbers a resumed node's input items (their order
	 * is the waiting outputs', not the input's), so the final outputs are paired from this.
	 */
	item?: number;
	/** webhook mode: when a lookup first found this message FAILED (its report is awaited for the reason) */
	failedSeenAt?: string;
	/** webhook mode: when the node calls its resume URL itself in this round (the timeout, or a FAILED message's grace end) */
	wakeAt?: string;
}

export const WAIT_KEY = 'svcDeliveryWait';

/** Set on a sent item when the service accepted it (its wait counts from then); moved into WAIT_KEY before output. */
export const ACCEPTED_AT = 'svcAcceptedAt';

export function waitInfoOf(item: INodeExecutionData): WaitInfo | undefined {
	const wait = item.json[WAIT_KEY] as WaitInfo | undefined;
	return wait && typeof wait.until === 'string' && typeof wait.since === 'string' ? wait : undefined;
}

/** An accepted message (not yet final) or an item that was never sent (`accepted: false`). */
export function isWaiting(item: INodeExecutionData): boolean {
	return item.json.accepted === true && !isFinal(item.json.status);
}

/**
 * A lookup found the message FAILED while reports are awaited: the report carries the reason, so
 * the message waits for it until DELIVERY_WAIT.failureReasonGraceMs after the first such lookup,
 * then is final without a reason (its reports kept meeting the execution busy, or were lost).
 */
export function afterFailedLookup(item: INodeExecutionData, lookup: IDataObject, graceMs: number, now = Date.now()): INodeExecutionData {
	const wait = item.json[WAIT_KEY] as WaitInfo;
	if (!wait.failedSeenAt) return { ...item, json: { ...item.json, [WAIT_KEY]: { ...wait, failedSeenAt: new Date(now).toISOString() } } };
	// A second early: the node's own call at the grace end may come from another process's clock.
	return now - Date.parse(wait.failedSeenAt) >= graceMs - 1000 ? withStatus(item, lookup) : item;
}

/** When the node resumes itself in a waiting round: at the timeout, or when a FAILED message's grace ends. */
export function wakeAtOf(items: INodeExecutionData[], until: string, graceMs: number): string {
	const graceEnds = items
		.filter(isWaiting)
		.map((item) => waitInfoOf(item)?.failedSeenAt)
		.filter((seen): seen is string => typeof seen === 'string')
		.map((seen) => Date.parse(seen) + graceMs);
	return new Date(Math.min(Date.parse(until), ...graceEnds)).toISOString();
}

/** The report's or the lookup's news about a message, merged into its item. */
export function withStatus(item: INodeExecutionData, update: IDataObject): INodeExecutionData {
	const json: IDataObject = { ...item.json, status: update.status };
	if (update.deliveredAt) json.deliveredAt = update.deliveredAt;
	if (update.reason) json.reason = update.reason;
	return { ...item, json };
}

/**
 * The two outputs: "Delivered" and "Not Delivered" (failed, expired, never accepted, or still
 * pending at the timeout, with `timedOut: true`). `final` is false while the node is still
 * waiting: then items not yet final are shown on "Not Delivered" as they would be at the timeout.
 */
export function splitOutcomes(items: INodeExecutionData[], final: boolean): INodeExecutionData[][] {
	const delivered: INodeExecutionData[] = [];
	const notDelivered: INodeExecutionData[] = [];
	for (const item of items) {
		const { [WAIT_KEY]: wait, ...rest } = item.json;
		for (const key of ['delivered', 'timedOut', 'waitedSeconds']) delete rest[key];
		const json: IDataObject = { delivered: rest.status === 'DELIVERED', ...rest };
		if (isWaiting(item)) json.timedOut = true;
		const info = waitInfoOf(item);
		if (info) json.waitedSeconds = Math.round((Date.now() - Date.parse(info.since)) / 100) / 10;
		if (!final && wait) json[WAIT_KEY] = wait;
		const pairedItem = info?.item !== undefined ? { item: info.item } : item.pairedItem;
		(json.delivered ? delivered : notDelivered).push({ ...item, json, pairedItem });
	}
	return final ? [inInputOrder(delivered), inInputOrder(notDelivered)] : [delivered, notDelivered];
}

function inInputOrder(items: INodeExecutionData[]): INodeExecutionData[] {
	const indexOf = (item: INodeExecutionData) => (item.pairedItem as { item?: number } | undefined)?.item ?? 0;
	return [...items].sort((a, b) => indexOf(a) - indexOf(b));
}
