/**
 * What this package assumes about the service where the spec says "not shown".
 * Every such choice of the nodes lives here (docs/assumptions.md lists them all).
 */
export const SERVICE = {
	defaultSenderId: 'SVCSMS',
	paths: {
		sendSms: '/api/sms/send-api',
		message: (messageId: string) => `/api/sms/messages/${encodeURIComponent(messageId)}`,
		batch: (batchId: string) => `/api/sms/batches/${encodeURIComponent(batchId)}`,
		deliveryRates: '/api/sms/analytics/delivery-rates',
		senderIds: '/api/sms/sender-ids',
		campaigns: '/api/sms/campaigns',
		campaign: (id: string | number) => `/api/sms/campaigns/${encodeURIComponent(String(id))}`,
		chatMessages: '/api/chat/messages',
		chatTemplates: '/api/chat/templates',
		chatTemplate: (name: string) => `/api/chat/templates/${encodeURIComponent(name)}`,
		login: '/api/auth/login',
		balance: '/api/account/balance',
	},
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
 * batch IDs, template names), and the longest chat text (the chat platform's own limit).
 */
export const INPUT_LIMITS = {
	maxPathIdCharacters: 128,
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
	/** header of the node's own call to the resume URL at the timeout: HMAC of the wait, keyed with the API key */
	deadlineHeader: 'x-svc-wait-deadline',
	/**
	 * query parameter of the report URL (webhookUrl) sent with each message: HMAC of the execution,
	 * keyed with the API key. A call to the resume URL without it gets a 401 and changes nothing.
	 */
	tokenParameter: 'svcWait',
	/** the node's own call at the wake time, while it meets the execution running (a report being handled): this many tries, this far apart */
	deadlineAttempts: 10,
	deadlineRetryMs: 3_000,
	/** at most this many resume claims and scheduled wake-up calls are remembered in one process (oldest dropped first) */
	maxTrackedWaits: 10_000,
} as const;
