/**
 * The service's distance: a delay before a request is processed (its way in) and another before its
 * answer leaves (its way out), each fixed or jittered (uniform in ms ± jitterMs). The rate limit and
 * the request log see a request when it ARRIVES, after the way in: the real service's view. Control
 * API requests (/__emulator/...) are never delayed. An emulator setting: reset keeps it.
 */
import { badRequest } from './http';
import { isObject } from './validate';

export interface Delay {
	ms: number;
	jitterMs: number;
}

export interface LatencyProfile {
	inbound: Delay;
	outbound: Delay;
}

export const NO_LATENCY: LatencyProfile = { inbound: { ms: 0, jitterMs: 0 }, outbound: { ms: 0, jitterMs: 0 } };

/** One draw of `delay`: uniform in [ms − jitterMs, ms + jitterMs]. */
export function drawMs(delay: Delay, random: () => number = Math.random): number {
	return delay.ms - delay.jitterMs + 2 * delay.jitterMs * random();
}

function parseDelay(raw: unknown, name: string): Delay {
	if (raw === undefined) return { ms: 0, jitterMs: 0 };
	if (typeof raw === 'number' || typeof raw === 'string') return parseDelayText(String(raw), name);
	if (!isObject(raw)) throw badRequest(`${name} must be {ms, jitterMs} or "ms±jitter"`);
	return checked({ ms: Number(raw.ms ?? 0), jitterMs: Number(raw.jitterMs ?? 0) }, name);
}

function checked(delay: Delay, name: string): Delay {
	const { ms, jitterMs } = delay;
	if (!Number.isFinite(ms) || !Number.isFinite(jitterMs) || jitterMs < 0 || ms - jitterMs < 0 || ms + jitterMs > 60_000) {
		throw badRequest(`${name} must have 0 ≤ ms − jitterMs and ms + jitterMs ≤ 60000; got ms ${ms}, jitterMs ${jitterMs}`);
	}
	return { ms, jitterMs };
}

/** "125", "125±25", "125+-25" or "125:25" (ms and jitter). */
export function parseDelayText(text: string, name: string): Delay {
	const match = /^\s*(\d+(?:\.\d+)?)\s*(?:(?:±|\+-|:)\s*(\d+(?:\.\d+)?))?\s*$/.exec(text);
	if (!match) throw badRequest(`${name} must be "ms" or "ms±jitter" (e.g. 125±25); got '${text}'`);
	return checked({ ms: Number(match[1]), jitterMs: Number(match[2] ?? 0) }, name);
}

/** `{inbound, outbound}`, each {ms, jitterMs} or "ms±jitter"; absent ways are 0. */
export function parseLatency(raw: unknown): LatencyProfile {
	if (!isObject(raw)) throw badRequest('latency must be an object {inbound, outbound}');
	return { inbound: parseDelay(raw.inbound, 'inbound'), outbound: parseDelay(raw.outbound, 'outbound') };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms).unref() : resolve()));
