/**
 * What this package assumes about the service where the spec says "not shown".
 * Every such choice of the nodes lives here (docs/assumptions.md lists them all).
 */
export const SERVICE = {
	defaultSenderId: 'SVCSMS',
	/** Credits one chat message costs (the spec prices SMS segments only; docs/assumptions.md). */
	chatCreditsPerMessage: 1,
	/** Largest page the list endpoints accept. */
	maxPageSize: 100,
	/** Webhook signature: `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. */
	signatureHeader: 'x-svc-signature',
	signaturePrefix: 'sha256=',
} as const;

/**
 * How the service counts "N requests per second" is not shown. The node starts at the plan's rate,
 * spaced (what a per-second or token-bucket count allows), and takes a 429 that rate drew as the
 * service asking for the strict reading (never N + 1 in any 1,000 ms), which it then keeps for the key
 * this long (docs/assumptions.md; the credential may fix either reading).
 */
export const RATE_READING = {
	default: 'learn',
	strictKeptMs: 30 * 24 * 60 * 60_000,
	/**
	 * Where a service that counts per second begins its seconds, in ms past a whole second of this
	 * machine's clock (both keep UTC): its second is the calendar second. A probe refused there moves
	 * the estimate (readingProbe.ts).
	 */
	secondEdgeMs: 0,
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
 * The nodes' documentation (both nodes' `documentationUrl`). The editor opens an http(s)
 * documentationUrl as it is; a codex link gets '?utm_…' appended, after its '#anchor'.
 */
export const DOCUMENTATION_URL = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';
