// The delivery-report trigger's own bounds, beside the trigger's code.

/**
 * The delivery-report trigger's bounds (not shown in the spec). A message ID longer than
 * `maxMessageIdCharacters` is refused (400); the duplicate ledger in the workflow's static data holds
 * at most `ledgerMaxBytes` of key digests (oldest dropped first); a report whose timestamp is older
 * than `maxReportAgeMs` (well past the service's last retry at about 2 h 42 min) starts nothing, and
 * one more than `maxFutureSkewMs` ahead of n8n's clock (clock skew beyond that is a broken clock or a
 * forgery: year 9999 would never age out of the replay window) is refused (400);
 * "Include Raw Payload" keeps the body only up to `rawPayloadMaxDepth` levels of nesting and
 * `rawPayloadMaxBytes` of JSON, else `raw` is replaced by a marker.
 */
export const TRIGGER_LIMITS = {
	maxMessageIdCharacters: 128,
	ledgerMaxBytes: 72 * 1024,
	maxReportAgeMs: 6 * 3600 * 1000,
	maxFutureSkewMs: 5 * 60 * 1000,
	rawPayloadMaxDepth: 32,
	rawPayloadMaxBytes: 16 * 1024,
} as const;
