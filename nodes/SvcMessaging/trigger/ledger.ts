import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { digest, redisClient, type SharedLimitConfig } from '../transport/redis';
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
 * With the credential's shared Redis, claimReport() replaces this list (see there).
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

/** Longer than the service's retry schedule (6 attempts over about 2 h 42 min). */
export const CLAIM_TTL_MS = 6 * 3600 * 1000;

/**
 * Claims the report for this workflow's trigger atomically (SET NX with a TTL): true for the one
 * process that gets it, false for every other delivery of the same messageId + event — two
 * `n8n webhook` processes receiving it at the same moment included. Throws when Redis cannot be
 * reached (the caller then asks the service to retry). The key is a digest.
 */
export async function claimReport(context: IWebhookFunctions, config: SharedLimitConfig, report: DeliveryReport): Promise<boolean> {
	const client = await redisClient(config, 'the delivery-report claims');
	const scope = `${context.getWorkflow().id ?? ''}\u0000${context.getNode().id}\u0000${reportKey(report)}`;
	const answer = await client.set(`${config.keyPrefix}:report:${digest(scope)}`, '1', 'PX', CLAIM_TTL_MS, 'NX');
	return answer === 'OK';
}
