import Bottleneck from 'bottleneck';
import { sleep } from 'n8n-workflow';

import type { PlanLimits } from './service';

/**
 * One limiter per API key, shared by every node and execution in this n8n process, so that
 * concurrent workflows on the same key together stay within the plan's request rate.
 */
export interface KeyLimiter {
	schedule<T>(task: () => Promise<T>): Promise<T>;
	/** A 429 arrived: hold every request on this key for `waitMs`, then go on a little slower. */
	penalize(waitMs: number): void;
	/** A request succeeded: drift back toward the plan's rate. */
	recover(): void;
	readonly limits: PlanLimits;
}

const limiters = new Map<string, KeyLimiter>();

const SLOWDOWN_FACTOR = 1.25;
const MAX_SLOWDOWN = 2;
const RECOVERY_PER_SUCCESS = 0.01;

/**
 * Spacing starts at exactly 1000/rate ms: the service refills the key's budget at the plan rate,
 * so steady spacing at that interval never exceeds it, while bursts stay impossible.
 */
function createLimiter(limits: PlanLimits): KeyLimiter {
	const baseMinTime = 1000 / limits.requestsPerSecond;
	let slowdown = 1;
	let pausedUntil = 0;
	const bottleneck = new Bottleneck({ minTime: baseMinTime, maxConcurrent: null });

	return {
		limits,
		async schedule<T>(task: () => Promise<T>) {
			return await bottleneck.schedule(task);
		},
		penalize(waitMs: number) {
			pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
			slowdown = Math.min(MAX_SLOWDOWN, slowdown * SLOWDOWN_FACTOR);
			// An empty reservoir queues every job without a burst when it is refilled: the jobs then
			// leave at the (slower) minTime spacing.
			bottleneck.updateSettings({ reservoir: 0, minTime: baseMinTime * slowdown });
			void sleep(waitMs).then(() => {
				if (Date.now() >= pausedUntil) bottleneck.updateSettings({ reservoir: null });
			});
		},
		recover() {
			if (slowdown === 1) return;
			slowdown = Math.max(1, slowdown - RECOVERY_PER_SUCCESS);
			bottleneck.updateSettings({ minTime: baseMinTime * slowdown });
		},
	};
}

/** The key is kept in process memory only (as n8n keeps decrypted credentials); it is never logged. */
export function limiterFor(baseUrl: string, apiKey: string, limits: PlanLimits): KeyLimiter {
	const id = `${baseUrl}\u0000${apiKey}\u0000${limits.requestsPerSecond}`;
	let limiter = limiters.get(id);
	if (!limiter) {
		limiter = createLimiter(limits);
		limiters.set(id, limiter);
	}
	return limiter;
}
