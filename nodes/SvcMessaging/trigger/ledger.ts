import type { IDataObject } from 'n8n-workflow';

import type { DeliveryReport } from './payload';

/**
 * Remembers which delivery reports already started an execution, so that the service's retries
 * (up to 6 attempts over about 2 h 42 min) and repeated deliveries start none.
 *
 * Kept in the node's workflow static data: a first-in-first-out list of the last LEDGER_SIZE keys
 * (messageId + event), at ~45 characters a key under 100 KB. n8n (1.123, LiveWebhooks) saves a
 * production webhook's static-data changes as soon as `webhook()` returns, before the execution
 * starts. It does not save them for test webhooks ("Listen for test event"), where the ledger
 * lasts one call. Two deliveries handled at the same moment each save their own copy (the last
 * save wins), so a key can be lost in that race; retries of one event are at least 30 s apart.
 */
export const LEDGER_SIZE = 2000;

const LEDGER_KEY = 'deliveryReportKeys';

export function reportKey(report: DeliveryReport): string {
	return `${report.data.messageId}|${report.event}`;
}

function keysOf(staticData: IDataObject): string[] {
	const keys = staticData[LEDGER_KEY];
	return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

export function hasSeen(staticData: IDataObject, key: string): boolean {
	return keysOf(staticData).includes(key);
}

/** Records `key`, dropping the oldest keys beyond `size`. */
export function remember(staticData: IDataObject, key: string, size = LEDGER_SIZE): void {
	const keys = keysOf(staticData).filter((existing) => existing !== key);
	keys.push(key);
	// A new array (not a push into the stored one) so that n8n's observable static data is marked
	// as changed and saved after the execution.
	staticData[LEDGER_KEY] = keys.slice(Math.max(0, keys.length - size));
}
