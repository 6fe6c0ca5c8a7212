import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { digest, type RedisUnavailable, type SharedLimitConfig } from '../transport/redis';
import { openRedisStore, type RedisStore } from '../transport/redisStore';

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

/**
 * Counts `messages` against `cap` in Redis. Fails closed: when Redis cannot be used the call is
 * refused with the Redis error, nothing sent.
 */
export async function reserveShared(node: INode, config: SharedLimitConfig, scope: string, cap: number, messages: number): Promise<SharedCount> {
	let store: RedisStore;
	let key: string;
	let result: number;
	try {
		store = await openRedisStore(config, 'the agents’ message cap');
		key = store.key(`agent-cap:${digest(scope)}`);
		// Counted once: a second try after a lost answer could count the messages twice.
		result = Number(await store.once(async (client) => await client.eval(RESERVE, 1, key, messages, cap, KEEP_MS)));
	} catch (error) {
		const unavailable = error as RedisUnavailable;
		throw new NodeOperationError(node, unavailable.message, { description: `${unavailable.description} The agents’ message cap is counted there, so the call is refused.` });
	}
	if (result < 0) return { refusedAt: -1 - result, giveBack: () => undefined };
	return {
		// A give-back that fails leaves the count higher than what was sent: the cap then errs on the safe side.
		giveBack: (back) => void (back > 0 && store.client.decrby(key, back).catch(() => undefined)),
	};
}
