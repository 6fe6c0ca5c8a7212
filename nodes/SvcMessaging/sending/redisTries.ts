import { sleep } from 'n8n-workflow';

import { redisAddress, RedisUnavailable, type SharedLimitConfig } from '../transport/redis';
import { SEND_LEDGER } from './ledgerBounds';

/**
 * Runs a Redis call of the send ledger or the idempotency keys, tried again after each of
 * SEND_LEDGER.redisRetryDelaysMs (a Redis that blinks), then failed as RedisUnavailable naming the
 * Redis and what it holds (never its password). The round makes each unsent item's error of it.
 */
export function redisTries(config: SharedLimitConfig, holds: string): <T>(call: () => Promise<T>) => Promise<T> {
	return async <T>(call: () => Promise<T>): Promise<T> => {
		let lastError: unknown;
		for (const delay of [...SEND_LEDGER.redisRetryDelaysMs, undefined]) {
			try {
				return await call();
			} catch (error) {
				lastError = error;
			}
			if (delay !== undefined) await sleep(delay);
		}
		throw new RedisUnavailable(`Lost the connection to Redis at ${redisAddress(config)}, which holds ${holds}`, lastError);
	};
}
