import type { IDataObject } from 'n8n-workflow';

import type { DeliveryReport } from './payload';

/**
 * Remembers which delivery reports already started an execution, so that the service's retries
 * (up to 6 attempts over about 2 h 42 min) and repeated deliveries start none.
 *
 * Kept in the node's workflow static data, which n8n saves after each production execution: a
 * first-in-first-out list of the last LEDGER_SIZE keys (messageId + event). At ~45 characters a
 * key, that is under 100 KB of static data. n8n does not save static data of manual (test)
 * executions, so there the ledger lasts for one call only.
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
