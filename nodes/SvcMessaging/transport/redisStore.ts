import { redisAddress, redisClient, RedisUnavailable, scopedPrefix, type RedisClient, type SharedLimitConfig } from './redis';
import { triedAgain } from './triedAgain';

/** A failed Redis read or write that may be repeated is tried again after each of these waits, then given up. */
export const REDIS_RETRY_DELAYS_MS = [100, 400] as const;

/**
 * What the send path keeps in the credential's shared Redis (the send ledger, the idempotency keys,
 * the do-not-send list, the agents' message cap) goes through one of these: the process's client of
 * that Redis, its keys under the credential's prefix, and every call failed the same way —
 * RedisUnavailable naming the Redis and what it holds, never its password. The round makes each
 * unsent item's error of it; the resource operations and the trigger, their own.
 */
export interface RedisStore {
	readonly client: RedisClient;
	/** `<Redis Key Prefix>:<name>`; with a scope, the prefix carries its hash tag (a Redis Cluster keeps a scope's keys in one slot) */
	key(name: string): string;
	/** a call that may run twice (a read, a SET of the same value, a SET NX that reads its own claim back): tried again after each of REDIS_RETRY_DELAYS_MS (a Redis that blinks) */
	tried<T>(call: (client: RedisClient) => Promise<T>): Promise<T>;
	/** a call whose second run would answer or count otherwise (SADD's count, INCRBY): tried once */
	once<T>(call: (client: RedisClient) => Promise<T>): Promise<T>;
}

/**
 * Opens the store of `holds` ("the send ledger"); throws RedisUnavailable when the Redis cannot be
 * reached. `scope`: the workflow node whose keys these are, hash-tagged in a Redis Cluster.
 */
export async function openRedisStore(config: SharedLimitConfig, holds: string, scope?: string): Promise<RedisStore> {
	const client = await redisClient(config, holds);
	const prefix = scope === undefined ? config.keyPrefix : scopedPrefix(config, scope);
	const run = async <T>(delaysMs: readonly number[], call: (client: RedisClient) => Promise<T>): Promise<T> => {
		let lastError: unknown;
		try {
			return await triedAgain(delaysMs, async () => await call(client));
		} catch (error) {
			lastError = error;
		}
		throw new RedisUnavailable(`Lost the connection to Redis at ${redisAddress(config)}, which holds ${holds}`, lastError);
	};
	return {
		client,
		key: (name) => `${prefix}:${name}`,
		tried: async (call) => await run(REDIS_RETRY_DELAYS_MS, call),
		once: async (call) => await run([], call),
	};
}
