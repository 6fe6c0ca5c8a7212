/**
 * The per-API-key rate limit, in one of two modes (README → Assumptions; the spec says "N
 * requests/second" and not how the service counts):
 * - 'token-bucket' (default): capacity = the key's requests per second, refilled at that rate, so a
 *   full bucket lets a second's worth through at once;
 * - 'sliding-window': at most N accepted requests in ANY 1,000 ms — the strictest reading, which
 *   a client that bunches its requests cannot pass;
 * - 'fixed-second': at most N accepted requests in each calendar second (epoch second of the
 *   emulator's clock), as many services count: 2N can pass within 1,000 ms across a boundary. Its
 *   seconds may begin `secondOffsetMs` (0–999) past the whole second, as a service whose clock is
 *   not this machine's (or that counts from its own start) does.
 * A request answered 429 is not counted; every other API-key request is, rejected ones included.
 */
import { RATE_LIMIT_HEADERS, RATE_LIMIT_WINDOW_MS } from './assumptions';
import { ApiError } from './http';
import type { ApiKeyRecord, Bucket } from './state';

export type RateLimitMode = 'token-bucket' | 'sliding-window' | 'fixed-second';
export const RATE_LIMIT_MODES: readonly RateLimitMode[] = ['token-bucket', 'sliding-window', 'fixed-second'];

export interface RateDecision {
	allowed: boolean;
	headers: Record<string, string>;
}

export interface RateLimitState {
	buckets: Map<string, Bucket>;
	/** sliding window: arrival times of the key's counted requests within the last window, oldest first */
	windows: Map<string, number[]>;
	/** fixed second: the key's current calendar second and the requests counted in it */
	seconds: Map<string, { second: number; count: number }>;
}

export function parseRateLimitMode(value: unknown): RateLimitMode {
	if (RATE_LIMIT_MODES.includes(value as RateLimitMode)) return value as RateLimitMode;
	throw new Error(`rate-limit mode must be one of ${RATE_LIMIT_MODES.join(', ')}; got '${String(value)}'`);
}

/** A fixed second's offset: a whole number of ms from 0 to 999. */
export function parseSecondOffset(value: unknown): number {
	const ms = Number(value);
	if (Number.isInteger(ms) && ms >= 0 && ms < 1000) return ms;
	throw new Error(`the second's offset must be a whole number of ms from 0 to 999; got '${String(value)}'`);
}

export function takeRequest(mode: RateLimitMode, state: RateLimitState, apiKey: ApiKeyRecord, now: number, secondOffsetMs = 0): RateDecision {
	if (mode === 'sliding-window') return takeSlot(state.windows, apiKey, now);
	if (mode === 'fixed-second') return takeInSecond(state.seconds, apiKey, now, secondOffsetMs);
	return takeToken(state.buckets, apiKey, now);
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

/** Allowed when fewer than N counted requests arrived in (now − 1,000 ms, now]. */
export function takeSlot(windows: Map<string, number[]>, apiKey: ApiKeyRecord, now: number): RateDecision {
	const rate = apiKey.requestsPerSecond;
	const times = windows.get(apiKey.key) ?? [];
	windows.set(apiKey.key, times);
	while (times.length && times[0] <= now - RATE_LIMIT_WINDOW_MS) times.shift();
	const allowed = times.length < rate;
	if (allowed) times.push(now);
	// The window is empty again when its newest request leaves it; the next slot frees when the oldest does.
	const emptyAt = times.length ? times[times.length - 1] + RATE_LIMIT_WINDOW_MS : now;
	const headers: Record<string, string> = {
		[RATE_LIMIT_HEADERS.limit]: String(rate),
		[RATE_LIMIT_HEADERS.remaining]: String(rate - times.length),
		[RATE_LIMIT_HEADERS.reset]: String(Math.ceil(emptyAt / 1000)),
	};
	if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((times[0] + RATE_LIMIT_WINDOW_MS - now) / 1000)));
	return { allowed, headers };
}

/** Allowed when fewer than N counted requests arrived in the current second (beginning `offsetMs` past a whole one). */
export function takeInSecond(seconds: Map<string, { second: number; count: number }>, apiKey: ApiKeyRecord, now: number, offsetMs = 0): RateDecision {
	const rate = apiKey.requestsPerSecond;
	const second = Math.floor((now - offsetMs) / 1000);
	const counted = seconds.get(apiKey.key);
	const current = counted && counted.second === second ? counted : { second, count: 0 };
	seconds.set(apiKey.key, current);
	const allowed = current.count < rate;
	if (allowed) current.count++;
	const headers: Record<string, string> = {
		[RATE_LIMIT_HEADERS.limit]: String(rate),
		[RATE_LIMIT_HEADERS.remaining]: String(rate - current.count),
		[RATE_LIMIT_HEADERS.reset]: String(Math.ceil(((second + 1) * 1000 + offsetMs) / 1000)),
	};
	if (!allowed) headers['Retry-After'] = '1';
	return { allowed, headers };
}

export function rateLimitError(limit: number | string): ApiError {
	return new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Too many requests: the limit of this API key is ${limit} requests per second`);
}
