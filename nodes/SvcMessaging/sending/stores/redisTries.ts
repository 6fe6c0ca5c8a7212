import { redisAddress, RedisUnavailable, type SharedLimitConfig } from '../../transport/redis';
import { triedAgain } from './triedAgain';

/** A failed Redis read or write is tried again after each of these waits, then given up. */
export const REDIS_RETRY_DELAYS_MS = [100, 400] as const;

/**
 * Runs a Redis call of the send ledger or the idempotency keys, tried again after each of
 * REDIS_RETRY_DELAYS_MS (a Redis that blinks), then failed as RedisUnavailable naming the
 * Redis and what it holds (never its password). The round makes each unsent item's error of it.
 */
export function redisTries(config: SharedLimitConfig, holds: string): <T>(call: () => Promise<T>) => Promise<T> {
	return async <T>(call: () => Promise<T>): Promise<T> => {
		let lastError: unknown;
		try {
			return await triedAgain(REDIS_RETRY_DELAYS_MS, call);
		} catch (error) {
			lastError = error;
		}
		throw new RedisUnavailable(`Lost the connection to Redis at ${redisAddress(config)}, which holds ${holds}`, lastError);
	};
}
