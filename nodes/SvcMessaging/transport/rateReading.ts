import type { IDataObject } from 'n8n-workflow';

import { RATE_READING } from './service';
import { CYCLE_MS, GAP_MS } from './startGrid';

/**
 * How the key's limiter reads "N requests per second" (the credential's How the Service Counts the
 * Rate): 'spaced' N starts spread over each second, 'strict' never N + 1 arrivals in any 1,000 ms,
 * 'learn' spaced until the service answers 429, then strict for the key.
 */
export type RateReading = 'learn' | 'spaced' | 'strict';

const READINGS: readonly RateReading[] = ['learn', 'spaced', 'strict'];

export function rateReadingOf(credentials: IDataObject): RateReading {
	const chosen = credentials.rateLimitReading as RateReading;
	return READINGS.includes(chosen) ? chosen : RATE_READING.default;
}

/** Keys learned in this process beyond this many: the oldest learned is forgotten first. */
const MAX_LEARNED = 10_000;
/** Keys (digests) this process saw refuse the spaced rate, and when; it outlives the keys' idle limiters. */
const learnedStrict = new Map<string, number>();

export function learnedStrictHere(keyDigest: string): boolean {
	const since = learnedStrict.get(keyDigest);
	if (since === undefined) return false;
	if (Date.now() - since < RATE_READING.strictKeptMs) return true;
	learnedStrict.delete(keyDigest);
	return false;
}

export function rememberStrictHere(keyDigest: string): void {
	learnedStrict.delete(keyDigest);
	learnedStrict.set(keyDigest, Date.now());
	if (learnedStrict.size > MAX_LEARNED) learnedStrict.delete(learnedStrict.keys().next().value!);
}

/** Forgets what this process learned (tests). */
export const forgetLearnedReadings = () => learnedStrict.clear();

/**
 * The key's Bottleneck settings under each reading. Strict: N slots (each held a second after its
 * answer, keyLimiter.ts), starts 0.8 × 1000/N ms apart, so a burst is still spread over the second and
 * slots that came due while the event loop was held (a GC, another workflow) catch up; at exactly
 * 1000/N no start is made up (a 60 ms pause every 5 s cost up to 1.5 % of Business's rate). Spaced:
 * 2N slots, held only for the answer (a round trip up to 2 s does not slow it); in one process the
 * start grid (startGrid.ts) times the starts, Bottleneck only keeps them its spacing apart (half of
 * it while Learn decides: readingProbe.ts's bursts are denser); with a shared limit, starts exactly
 * 1000/N ms apart for every process on the key.
 */
export function limiterSettings(
	limits: { requestsPerSecond: number },
	strict: boolean,
	grid = false,
	deciding = false,
): { minTime: number; maxConcurrent: number } {
	const n = limits.requestsPerSecond;
	if (strict) return { minTime: 800 / n, maxConcurrent: n };
	return { minTime: (grid ? (CYCLE_MS - GAP_MS) / (deciding ? 2 : 1) : CYCLE_MS) / n, maxConcurrent: 2 * n };
}
