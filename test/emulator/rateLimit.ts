/** Token bucket per API key: capacity = the key's requests per second, refilled at that rate. */
import { RATE_LIMIT_HEADERS } from './assumptions';
import { ApiError } from './http';
import type { ApiKeyRecord, Bucket } from './state';

export interface RateDecision {
	allowed: boolean;
	headers: Record<string, string>;
}

export function takeToken(buckets: Map<string, Bucket>, apiKey: ApiKeyRecord, now: number): RateDecision {
	const rate = apiKey.requestsPerSecond;
	const bucket = buckets.get(apiKey.key) ?? { tokens: rate, updatedAt: now };
	bucket.tokens = Math.min(rate, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * rate);
	bucket.updatedAt = now;
	buckets.set(apiKey.key, bucket);
	const allowed = bucket.tokens >= 1;
	if (allowed) bucket.tokens -= 1;
	const fullAt = now + ((rate - bucket.tokens) / rate) * 1000;
	const headers: Record<string, string> = {
		[RATE_LIMIT_HEADERS.limit]: String(rate),
		[RATE_LIMIT_HEADERS.remaining]: String(Math.floor(bucket.tokens)),
		[RATE_LIMIT_HEADERS.reset]: String(Math.ceil(fullAt / 1000)),
	};
	if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / rate)));
	return { allowed, headers };
}

export function rateLimitError(limit: number | string): ApiError {
	return new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Too many requests: the limit of this API key is ${limit} requests per second`);
}
