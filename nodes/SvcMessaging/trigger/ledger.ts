import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { digest, type SharedLimitConfig } from '../transport/redis';
import { openRedisStore } from '../transport/redisStore';
import { TRIGGER_LIMITS } from './limits';
import type { DeliveryReport } from './payload';

/**
 * Remembers which delivery reports already started an execution, so that the service's retries
 * (up to 6 attempts over about 2 h 42 min) and repeated deliveries start none.
 *
 * Kept in the node's workflow static data: a first-in-first-out list of key digests (32 hex
 * characters of SHA-256 over messageId + event, so a long message ID costs no more than a short one),
 * bounded by bytes (TRIGGER_LIMITS.ledgerMaxBytes, about 2,100 digests): the static data is saved
 * with the workflow, so its size is what must stay bounded. n8n (1.123, LiveWebhooks) saves a
 * production webhook's static-data changes as soon as `webhook()` returns, before the execution
 * starts. It does not save them for test webhooks ("Listen for test event"), where the ledger
 * lasts one call. Two deliveries handled at the same moment each save their own copy (the last
 * save wins), so a key can be lost in that race; retries of one event are at least 30 s apart.
 * With the credential's shared Redis, claimReport() replaces this list (see there).
 */
const LEDGER_KEY = 'deliveryReportKeys';

/** Bytes one stored digest takes in the static data's JSON (the quotes and the comma). */
const entryBytes = (key: string) => key.length + 3;

/** How many digests fit in the ledger: the replay window of the static-data ledger, in reports. */
export const LEDGER_CAPACITY = Math.floor(TRIGGER_LIMITS.ledgerMaxBytes / entryBytes(digest('')));

export function reportKey(report: DeliveryReport): string {
	return digest(`${report.data.messageId}|${report.event}`);
}

function keysOf(staticData: IDataObject): string[] {
	const keys = staticData[LEDGER_KEY];
	return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

/**
 * Whether `report` was seen. Also matches the plain `messageId|event` keys of versions before the
 * digests, so a retry in flight across an upgrade still starts nothing.
 */
export function hasSeen(staticData: IDataObject, report: DeliveryReport): boolean {
	const keys = keysOf(staticData);
	return keys.includes(reportKey(report)) || keys.includes(`${report.data.messageId}|${report.event}`);
}

/** Records `report`, dropping the oldest keys until the list fits in `maxBytes`. */
export function remember(staticData: IDataObject, report: DeliveryReport, maxBytes: number = TRIGGER_LIMITS.ledgerMaxBytes): void {
	const key = reportKey(report);
	const keys = keysOf(staticData).filter((existing) => existing !== key);
	keys.push(key);
	let bytes = keys.reduce((sum, k) => sum + entryBytes(k), 0);
	let first = 0;
	while (bytes > maxBytes && first < keys.length - 1) bytes -= entryBytes(keys[first++]);
	// A new array (not a push into the stored one) so that n8n's observable static data is marked
	// as changed and saved after the execution.
	staticData[LEDGER_KEY] = keys.slice(first);
}

/** Whether the report's own timestamp is older than the replay window (TRIGGER_LIMITS.maxReportAgeMs). */
export function isStale(report: DeliveryReport, now: number): boolean {
	return now - Date.parse(report.timestamp) > TRIGGER_LIMITS.maxReportAgeMs;
}

/** Whether the report's timestamp is further ahead of `now` than the clock skew accepted (TRIGGER_LIMITS.maxFutureSkewMs). */
export function isFromTheFuture(report: DeliveryReport, now: number): boolean {
	return Date.parse(report.timestamp) - now > TRIGGER_LIMITS.maxFutureSkewMs;
}

/**
 * As long as a report can be accepted after its first delivery, so that no replay outlives its
 * claim: up to maxFutureSkewMs ahead, then maxReportAgeMs until it is stale, and a minute for the
 * clocks of several n8n processes and Redis.
 */
export const CLAIM_TTL_MS = TRIGGER_LIMITS.maxFutureSkewMs + TRIGGER_LIMITS.maxReportAgeMs + 60 * 1000;

/**
 * Claims the report for this workflow's trigger atomically (SET NX with a TTL): true for the one
 * process that gets it, false for every other delivery of the same messageId + event — two
 * `n8n webhook` processes receiving it at the same moment included. Throws when Redis cannot be
 * reached (the caller then asks the service to retry). The key is a digest.
 */
export async function claimReport(context: IWebhookFunctions, config: SharedLimitConfig, report: DeliveryReport): Promise<boolean> {
	const store = await openRedisStore(config, 'the delivery-report claims');
	const scope = `${context.getWorkflow().id ?? ''}\u0000${context.getNode().id}\u0000${report.data.messageId}|${report.event}`;
	// Once: after a lost answer, a second SET NX would find its own claim and drop the report.
	const answer = await store.once(async (client) => await client.set(store.key(`report:${digest(scope)}`), '1', 'PX', CLAIM_TTL_MS, 'NX'));
	return answer === 'OK';
}
