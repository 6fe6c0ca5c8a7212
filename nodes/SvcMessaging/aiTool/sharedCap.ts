import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { digest, redisClient, RedisUnavailable, reasonOf, redisAddress, type SharedLimitConfig } from '../transport/redis';

/**
 * The agents' message count in the credential's Redis ("Use Redis", parameter
 * sharedRateLimit): in queue mode a tool call of one execution may run on any worker, and a count in
 * each process would let every worker send up to the cap. The check and the count are one Lua
 * step, so concurrent calls on several workers cannot both pass. The key holds a digest of the
 * workflow and execution ids and lapses 24 hours after its last use.
 */
const KEEP_MS = 24 * 3600 * 1000;

/** Returns the count after adding `messages`, or -1 - count when they would go past `cap` (nothing added). */
const RESERVE = `
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
local add = tonumber(ARGV[1])
if now + add > tonumber(ARGV[2]) then return -1 - now end
redis.call('INCRBY', KEYS[1], add)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return now + add`;

export interface SharedCount {
	/** messages counted before this call, when the call was refused; undefined when it was counted */
	refusedAt?: number;
	/** gives back messages that were not sent after all */
	giveBack(messages: number): void;
}

const keyOf = (config: SharedLimitConfig, scope: string) => `${config.keyPrefix}:agent-cap:${digest(scope)}`;

/**
 * Counts `messages` against `cap` in Redis. Fails closed: when Redis cannot be used the call is
 * refused with the Redis error, nothing sent.
 */
export async function reserveShared(node: INode, config: SharedLimitConfig, scope: string, cap: number, messages: number): Promise<SharedCount> {
	const key = keyOf(config, scope);
	let result: number;
	let client: Awaited<ReturnType<typeof redisClient>>;
	try {
		client = await redisClient(config, 'the agents’ message cap');
		result = Number(await client.eval(RESERVE, 1, key, messages, cap, KEEP_MS));
	} catch (error) {
		const unavailable = error instanceof RedisUnavailable ? error : new RedisUnavailable(`Lost the connection to Redis at ${redisAddress(config)}`, reasonOf(error));
		throw new NodeOperationError(node, unavailable.message, { description: `${unavailable.description} The agents’ message cap is counted there, so the call is refused.` });
	}
	if (result < 0) return { refusedAt: -1 - result, giveBack: () => undefined };
	return {
		// A give-back that fails leaves the count higher than what was sent: the cap then errs on the safe side.
		giveBack: (back) => void (back > 0 && client.decrby(key, back).catch(() => undefined)),
	};
}
