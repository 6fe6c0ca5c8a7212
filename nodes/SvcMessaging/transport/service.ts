/**
 * What this package assumes about the service where the spec says "not shown".
 * Every such choice of the nodes lives here (README's Assumptions table lists them all).
 */
export const SERVICE = {
	defaultSenderId: 'SVCSMS',
	/** Largest page the list endpoints accept. */
	maxPageSize: 100,
	/** Webhook signature: `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. */
	signatureHeader: 'x-svc-signature',
	signaturePrefix: 'sha256=',
} as const;

export type PlanName = 'free' | 'starter' | 'business' | 'enterprise';

export interface PlanLimits {
	requestsPerSecond: number;
	recipientsPerCall: number;
}

/** The spec's Limits table. Enterprise values come from the credential. */
export const PLANS: Record<Exclude<PlanName, 'enterprise'>, PlanLimits> = {
	free: { requestsPerSecond: 5, recipientsPerCall: 100 },
	starter: { requestsPerSecond: 20, recipientsPerCall: 1000 },
	business: { requestsPerSecond: 100, recipientsPerCall: 10000 },
};

/**
 * Not shown in the spec: the longest identifier the nodes put into a request path (message and
 * batch IDs), the longest chat text (the chat platform's own limit), the longest URL (what browsers
 * and most servers accept), a campaign name (a usual database text column) and a template name (the
 * chat platform's documented maximum; its names are lowercase letters, digits and underscores).
 */
export const INPUT_LIMITS = {
	maxPathIdCharacters: 128,
	maxUrlCharacters: 2048,
	maxCampaignNameCharacters: 255,
	maxTemplateNameCharacters: 512,
	maxCampaignIdDigits: 15,
	maxChatTextCharacters: 4096,
	maxReferenceCharacters: 100,
} as const;

export const SMS_LIMITS = {
	maxMessageCharacters: 1600,
	maxSenderIdLength: 11,
	gsmSegmentSize: 160,
	unicodeSegmentSize: 70,
} as const;

/**
 * "Send and Wait for Delivery". The message lookup (GET /api/sms/messages/:id) has no failure
 * reason in the spec, so in polling mode a FAILED message has none; delivery reports carry it.
 */
export const DELIVERY_WAIT = {
	/** the suffix of the execution's resume URL that the service posts the reports to */
	resumePath: 'svc-delivery-report',
	timeoutSeconds: { default: 120, min: 5, maxPolling: 15 * 60, maxWebhook: 24 * 3600 },
	pollIntervalSeconds: { default: 5, min: 1, max: 300 },
	pollBackoff: 1.5,
	maxPollIntervalMs: 60_000,
	/** n8n's own timer resumes the execution this long after the timeout if the node's call did not */
	backstopMs: 60_000,
	/**
	 * Delivery Report mode: a message a lookup found FAILED waits this long for its report (which
	 * carries the reason; the service retries a report after 30 s) before it is final without one.
	 */
	failureReasonGraceMs: 45_000,
	/** a waiting state resumed by one report is not resumed by another for this long (deliveryReportWebhook) */
	resumeClaimMs: 30_000,
	/** header of the node's own call to the resume URL at the timeout: HMAC of the wait, keyed with the wait's own secret */
	deadlineHeader: 'x-svc-wait-deadline',
	/**
	 * query parameter of the report URL (webhookUrl) sent with each message: HMAC of the execution,
	 * keyed with a random secret of the wait (not the API key, which may be replaced while it waits).
	 * A call to the resume URL without it gets a 401 and changes nothing.
	 */
	tokenParameter: 'svcWait',
	/** the node's own call at the wake time, while it meets the execution running (a report being handled): this many tries, this far apart */
	deadlineAttempts: 10,
	deadlineRetryMs: 3_000,
	/** at most this many resume claims and scheduled wake-up calls are remembered in one process (oldest dropped first) */
	maxTrackedWaits: 10_000,
} as const;

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

/**
 * "Verify Media Link" (not in the spec): the HEAD request's time limit, and how many redirects it
 * follows, each target checked like the link itself (public host, HTTPS) before it is requested.
 */
export const MEDIA_CHECK = {
	headTimeoutMs: 15_000,
	maxRedirects: 3,
} as const;

/**
 * The account login (credentials/SvcMessagingAccountApi preAuthentication), not shown in the spec:
 * a 5xx, a 429 or no answer is tried again, `attempts` in all, after `backoffMs` (or the 429's
 * Retry-After, when it is no longer than `maxRetryAfterMs`); a login sends no message, so repeating
 * it is safe. Any other refusal (wrong email or password) is final after one try.
 */
export const LOGIN_RETRY = {
	attempts: 3,
	backoffMs: [1000, 2000],
	maxRetryAfterMs: 30_000,
} as const;

/**
 * The send ledger (sending/ledger.ts): what each send operation already sent, so that no retry
 * sends it again. Not in the spec: the package's own bounds.
 */
export const SEND_LEDGER = {
	/**
	 * An execution Retry also honours entries of runs that FINISHED (the node succeeded, then the
	 * execution crashed before n8n saved its progress) when written this recently; older finished
	 * entries (yesterday's identical reminder) do not hold a retry back.
	 */
	finishedRunRetryWindowMs: 60 * 60 * 1000,
	/** how long an entry stays in the shared Redis (an execution Retry later than this is not covered) */
	redisTtlMs: 72 * 3600 * 1000,
	/**
	 * the in-process ledger's size (estimated bytes); past it whole runs go: finished ones first,
	 * then open ones not written to for `openRunProtectionMs` (sending/ledgerMemory.ts)
	 */
	maxMemoryBytes: 24 * 1024 * 1024,
	/** an open run written to this recently is never evicted: its Retry On Fail must find all it sent */
	openRunProtectionMs: 10 * 60 * 1000,
	/** runs this process remembers as having sent or finished (a few hundred bytes each) */
	maxRuns: 20_000,
	/** a failed Redis read or write is tried again after each of these waits, then given up */
	redisRetryDelaysMs: [100, 400],
	/** keys per Redis round trip */
	redisBatch: 1_000,
} as const;

/**
 * Not shown in the spec (a choice of this package): how many recipients one Send Bulk execution
 * keeps in calls under way at once. Each call's request body and answer stay in memory until it is
 * answered: two Business calls of 10,000 (Starter's request window, ten calls of 1,000, is smaller).
 */
export const BULK_RECIPIENTS_IN_FLIGHT = 20_000;

/**
 * The nodes' documentation (both nodes' `documentationUrl`). The editor opens an http(s)
 * documentationUrl as it is; a codex link gets '?utm_…' appended, after its '#anchor'.
 */
export const DOCUMENTATION_URL = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';
