import { redisAddress, RedisUnavailable, type SharedLimitConfig } from '../../transport/redis';
import { SEND_LEDGER } from '../ledger/ledgerBounds';
import { triedAgain } from './triedAgain';

/**
 * Runs a Redis call of the send ledger or the idempotency keys, tried again after each of
 * SEND_LEDGER.redisRetryDelaysMs (a Redis that blinks), then failed as RedisUnavailable naming the
 * Redis and what it holds (never its password). The round makes each unsent item's error of it.
 */
export function redisTries(config: SharedLimitConfig, holds: string): <T>(call: () => Promise<T>) => Promise<T> {
	return async <T>(call: () => Promise<T>): Promise<T> => {
		let lastError: unknown;
		try {
			return await triedAgain(SEND_LEDGER.redisRetryDelaysMs, call);
		} catch (error) {
			lastError = error;
		}
		throw new RedisUnavailable(`Lost the connection to Redis at ${redisAddress(config)}, which holds ${holds}`, lastError);
	};
}
