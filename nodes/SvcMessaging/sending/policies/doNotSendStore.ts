import type { SharedLimitConfig } from '../../transport/redis';
import { openRedisStore } from '../../transport/redisStore';

/**
 * The do-not-send list in the API-key credential's Redis ("Use Redis", parameter
 * sharedRateLimit): one Redis set of E.164 numbers under `<Redis Key Prefix>:do-not-send`. Credentials
 * with the same Redis and prefix share one list (an account's several API keys, every worker);
 * another account takes another prefix. The members are the numbers themselves, unlike the
 * ledger's digests: the user reads the list back (Get Many), and a number is no secret here.
 */
export const DO_NOT_SEND = {
	/** numbers per Redis round trip when a send checks its recipients (SMISMEMBER) */
	batch: 1_000,
	/** members per SSCAN step of Get Many */
	scanCount: 500,
} as const;

export interface DoNotSendStore {
	/** adds the numbers; answers how many were not listed before */
	add(numbers: string[]): Promise<number>;
	/** removes the numbers; answers how many were listed */
	remove(numbers: string[]): Promise<number>;
	/** whether each number is listed, in order: one round trip per DO_NOT_SEND.batch numbers */
	listed(numbers: string[]): Promise<boolean[]>;
	/** up to `limit` listed numbers (all when undefined), in Redis's order */
	members(limit?: number): Promise<string[]>;
}

/** Opens the list; throws RedisUnavailable (naming the Redis, never its password) when it cannot be reached. */
export async function doNotSendStore(config: SharedLimitConfig): Promise<DoNotSendStore> {
	// RedisUnavailable goes on to the round (each unsent item's error) or the resource's operation.
	const { client, key: keyOf, once } = await openRedisStore(config, 'the do-not-send list');
	const key = keyOf('do-not-send');
	return {
		add: async (numbers) => (numbers.length ? await once(async () => await client.sadd(key, ...numbers)) : 0),
		remove: async (numbers) => (numbers.length ? await once(async () => await client.srem(key, ...numbers)) : 0),
		async listed(numbers) {
			const out: boolean[] = [];
			for (let start = 0; start < numbers.length; start += DO_NOT_SEND.batch) {
				const answers = await once(async () => await client.smismember(key, ...numbers.slice(start, start + DO_NOT_SEND.batch)));
				for (const answer of answers) out.push(answer === 1);
			}
			return out;
		},
		async members(limit) {
			// SSCAN may answer a member twice (the set rehashed between steps).
			const out = new Set<string>();
			let cursor = '0';
			do {
				const [next, page] = await once(async () => await client.sscan(key, cursor, 'COUNT', DO_NOT_SEND.scanCount));
				for (const number of page) if (limit === undefined || out.size < limit) out.add(number);
				cursor = next;
			} while (cursor !== '0' && (limit === undefined || out.size < limit));
			return [...out];
		},
	};
}
