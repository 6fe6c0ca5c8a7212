/**
 * The codes this package sets on its own errors (`context.errorCode`) and the category of every code
 * a caller may read: one table, read by errors.ts.
 */

/** No answer from the service (a lost connection or a timeout). */
export const NETWORK_ERROR = 'NETWORK_ERROR';

/** The code the account credential puts on the error of a refused login (see request.ts). */
export const LOGIN_FAILED = 'LOGIN_FAILED';

/** The account login got a 5xx or no answer on every try: the service, not the password, failed. */
export const LOGIN_UNAVAILABLE = 'LOGIN_UNAVAILABLE';

/** The account login was rate limited (429) on every try. */
export const LOGIN_RATE_LIMITED = 'LOGIN_RATE_LIMITED';

/** The codes the account credential's login puts on its errors (`errorCode`). */
export const LOGIN_CODES: readonly string[] = [LOGIN_FAILED, LOGIN_UNAVAILABLE, LOGIN_RATE_LIMITED];

/** Redis (the shared rate limit or send ledger) could not be used; nothing was sent. */
export const REDIS_UNAVAILABLE = 'REDIS_UNAVAILABLE';

/** n8n's database (the send ledger's record without Redis) did not take a message's mark: nothing was sent. */
export const LEDGER_UNAVAILABLE = 'LEDGER_UNAVAILABLE';

/** The key's rate limiter failed before the request left: not sent (limiterFault). */
export const LIMITER_FAULT = 'LIMITER_FAULT';

/** An earlier try may have sent the message: reported, not sent again. */
export const UNKNOWN_OUTCOME = 'UNKNOWN_OUTCOME';

/** Options → Idempotency Key: another execution holds the key and its result did not come in time; nothing was sent. */
export const IDEMPOTENCY_KEY_HELD = 'IDEMPOTENCY_KEY_HELD';

/** Options → Idempotency Key without Redis: this n8n process holds as many keys as it may, all within their hours; nothing was sent. */
export const IDEMPOTENCY_KEYS_FULL = 'IDEMPOTENCY_KEYS_FULL';

/** Input refused by this package's own checks (rules/), before anything was sent. */
export const INVALID_INPUT = 'INVALID_INPUT';

/** This package's own account-balance check: the account has fewer credits than the estimate. */
export const INSUFFICIENT_CREDITS = 'INSUFFICIENT_CREDITS';

/** "Max Credits": the send's estimate is above the budget; nothing was sent. */
export const CREDIT_BUDGET_EXCEEDED = 'CREDIT_BUDGET_EXCEEDED';

/** Several items failed with different codes (the summary error of a send). */
export const SEVERAL_ERRORS = 'SEVERAL_ERRORS';

/**
 * What kind of failure a code is, for a caller (an AI agent) deciding whether to try again:
 * `retryable` means the same call may succeed later without any change.
 */
export type ErrorCategory =
	| 'INVALID_INPUT'
	| 'NOT_ALLOWED'
	| 'NOT_FOUND'
	| 'AUTH_FAILED'
	| 'RATE_LIMITED'
	| 'SERVICE_UNAVAILABLE'
	| 'INSUFFICIENT_CREDITS'
	| 'REDIS_UNAVAILABLE'
	| 'UNKNOWN_OUTCOME'
	| 'LIMIT_REACHED'
	| 'MIXED'
	| 'UNEXPECTED';

export const CATEGORY_OF_CODE: Record<string, ErrorCategory> = {
	[INVALID_INPUT]: 'INVALID_INPUT',
	BAD_REQUEST: 'INVALID_INPUT',
	PAYLOAD_TOO_LARGE: 'INVALID_INPUT',
	INVALID_PHONE_NUMBER: 'INVALID_INPUT',
	MESSAGE_TOO_LONG: 'INVALID_INPUT',
	INVALID_SENDER_ID: 'INVALID_INPUT',
	EMPTY_RECIPIENTS: 'INVALID_INPUT',
	INVALID_MEDIA_URL: 'INVALID_INPUT',
	INVALID_TEMPLATE: 'INVALID_INPUT',
	INVALID_CONTACT_GROUP: 'INVALID_INPUT',
	TEMPLATE_ALREADY_EXISTS: 'INVALID_INPUT',
	INVALID_CAMPAIGN_STATUS: 'NOT_ALLOWED',
	CHAT_OPT_IN_REQUIRED: 'NOT_ALLOWED',
	CHAT_NUMBER_NOT_REGISTERED: 'NOT_ALLOWED',
	NOT_FOUND: 'NOT_FOUND',
	UNAUTHORIZED: 'AUTH_FAILED',
	[LOGIN_FAILED]: 'AUTH_FAILED',
	RATE_LIMIT_EXCEEDED: 'RATE_LIMITED',
	[LOGIN_RATE_LIMITED]: 'RATE_LIMITED',
	[LOGIN_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
	SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
	INTERNAL_ERROR: 'SERVICE_UNAVAILABLE',
	[NETWORK_ERROR]: 'SERVICE_UNAVAILABLE',
	[INSUFFICIENT_CREDITS]: 'INSUFFICIENT_CREDITS',
	[REDIS_UNAVAILABLE]: 'REDIS_UNAVAILABLE',
	[LEDGER_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
	[UNKNOWN_OUTCOME]: 'UNKNOWN_OUTCOME',
	[IDEMPOTENCY_KEY_HELD]: 'UNKNOWN_OUTCOME',
	[IDEMPOTENCY_KEYS_FULL]: 'LIMIT_REACHED',
	MESSAGE_CAP_REACHED: 'LIMIT_REACHED',
	[CREDIT_BUDGET_EXCEEDED]: 'LIMIT_REACHED',
	[SEVERAL_ERRORS]: 'MIXED',
	[LIMITER_FAULT]: 'UNEXPECTED',
};

export const RETRYABLE = new Set<ErrorCategory>(['RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'REDIS_UNAVAILABLE']);
