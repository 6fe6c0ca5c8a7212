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
