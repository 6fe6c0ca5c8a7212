/**
 * Every choice the emulator makes where the spec says "not shown", in one place.
 * Each constant matches a row of README's Assumptions table and docs/emulator.md; the nodes make
 * the same choices in nodes/SvcMessaging/transport/service.ts. Change both together.
 */

/** `<DEFAULT_SENDER_ID>`: used per call when senderId is omitted; allowed in every country. */
export const DEFAULT_SENDER_ID = 'SVCSMS';

/** Sender ID listing path (API key). */
export const SENDER_IDS_PATH = '/api/sms/sender-ids';

/** Enterprise keys without custom values get these. */
export const ENTERPRISE_DEFAULT_LIMITS = { requestsPerSecond: 200, recipientsPerCall: 20000 };

/** National significant digits of a mobile number by calling code (Nigeria 10, the others 9). */
export const NATIONAL_DIGITS: Record<string, number> = { '234': 10 };
export const DEFAULT_NATIONAL_DIGITS = 9;

/** Chat recipients may be in any country: generic E.164 (8-15 digits); otherwise 400 BAD_REQUEST. */
export const CHAT_PHONE_PATTERN = /^\+[1-9]\d{7,14}$/;

/** Template buttons (rules the spec does not state): URL buttons need an http(s) url, PHONE_NUMBER buttons
 * an E.164 phone_number matching this, and buttons other than COPY_CODE and OTP a non-blank text. */
export const BUTTON_PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;

/** GSM-7 default alphabet and its extension table (extension characters count 2 septets). */
export const GSM7_BASIC =
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
export const GSM7_EXTENSION = '^{}\\[~]|€\f';

/**
 * Rate limit per API key: by default a token bucket (capacity = plan rate, refilled at the plan rate
 * per second); optionally a sliding window (at most the plan rate in any RATE_LIMIT_WINDOW_MS).
 */
export const DEFAULT_RATE_LIMIT_MODE = 'token-bucket';
export const RATE_LIMIT_WINDOW_MS = 1000;
export const RATE_LIMIT_HEADERS = {
	limit: 'X-RateLimit-Limit',
	remaining: 'X-RateLimit-Remaining',
	/** epoch seconds at which the bucket is full again (sliding window: at which the window is empty) */
	reset: 'X-RateLimit-Reset',
} as const;

/** Message lifecycle (multiplied by timeScale). */
export const LIFECYCLE_SENT_AFTER_MS = 1000;
export const LIFECYCLE_FINAL_AFTER_SENT_MS = 3000;

/** Test numbers with fixed outcomes (by suffix); every other valid number is delivered. */
export const TEST_NUMBER_OUTCOMES: ReadonlyArray<{
	suffix: string;
	status: 'FAILED' | 'EXPIRED';
	reason?: { code: string; message: string };
}> = [
	{
		suffix: '999',
		status: 'FAILED',
		reason: { code: 'DESTINATION_NOT_REACHABLE', message: 'The destination handset could not be reached' },
	},
	{ suffix: '998', status: 'EXPIRED' },
	{ suffix: '997', status: 'FAILED', reason: { code: 'BLACKLISTED', message: 'The recipient has blocked this sender' } },
];

/** Webhooks: signature header and format, timeouts (real milliseconds, not scaled). */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Svc-Signature';
export const WEBHOOK_SIGNATURE_PREFIX = 'sha256=';
export const WEBHOOK_CONNECT_TIMEOUT_MS = 5000;
export const WEBHOOK_RESPONSE_TIMEOUT_MS = 5000;
/** Webhook attempts in flight at once (others wait their turn; an attempt's time is when it starts). */
export const WEBHOOK_MAX_CONCURRENCY = 32;
export const WEBHOOK_USER_AGENT = 'svc-messaging-emulator/1 (webhooks)';
/** data.batchId of webhook events for messages that belong to no batch (single sends, campaigns). */
export const NO_BATCH_ID = null;

/** Template review (multiplied by timeScale); a name containing the marker is rejected. */
export const TEMPLATE_REVIEW_MS = 2000;
export const TEMPLATE_REJECT_MARKER = 'reject';
export const TEMPLATE_REJECTED_REASON = 'The template does not comply with the platform messaging policy';

/** Pagination. Values out of range give 400 BAD_REQUEST. */
export const CAMPAIGN_PAGE = { defaultLimit: 10, maxLimit: 100 };
export const TEMPLATE_PAGE = { defaultLimit: 20, maxLimit: 100 };

/** Delivery-rate analytics default window. */
export const ANALYTICS_DEFAULT_DAYS = 30;

export const CHAT_CREDITS_PER_MESSAGE = 1;
/** Allowed media file extensions of chat links (the link must be https). */
export const CHAT_MEDIA_EXTENSIONS: Record<'image' | 'document' | 'video', string[]> = {
	image: ['jpg', 'jpeg', 'png', 'webp'],
	document: ['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx'],
	video: ['mp4', '3gp', '3gpp'],
};

/** Emulator-only: control surface prefix, fault defaults, limits on request bodies and the request log. */
export const CONTROL_PREFIX = '/__emulator';
export const FAULT_DEFAULTS = { count: 1, status: 500, delayMs: 2000, retryAfterSeconds: 1 };
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
export const MAX_REQUEST_LOG = 10000;
/** Accounts added through the control surface without an id or key get these prefixes. */
export const GENERATED_ACCOUNT_PREFIX = 'acc_';
export const GENERATED_KEY_PREFIX = 'svc_test_';
