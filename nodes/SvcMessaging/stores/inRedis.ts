import { hashSlot, isCluster, type SharedLimitConfig } from '../transport/redis';
import { openRedisStore } from '../transport/redisStore';
import type { Store } from './store';

/** Keys per Redis round trip (MGET, a pipeline of SETs, DEL). */
export const REDIS_BATCH = 1_000;
/** Round trips under way at once for one call (a Redis Cluster's keys of several slots). */
const REDIS_WAVE = 8;

/**
 * Replaces a value only when its holder asks (its token): with the next value, or removes it
 * (ARGV[2] empty). The rest of the key's time is kept.
 */
const REPLACE_IF_TOKEN = `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local ok, value = pcall(cjson.decode, held)
if not ok or type(value) ~= 'table' or value.token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
local left = redis.call('PTTL', KEYS[1])
if left > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', left) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

/** Answers the count after adding ARGV[1], or -1 - count when it would pass ARGV[2] (nothing added). */
const ADD_UP_TO = `
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
local add = tonumber(ARGV[1])
if now + add > tonumber(ARGV[2]) then return -1 - now end
redis.call('INCRBY', KEYS[1], add)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return now + add`;

/**
 * The places of `names` in calls of at most REDIS_BATCH keys. In a Redis Cluster a call keeps to one
 * hash slot (a multi-key command over several fails with CROSSSLOT): keys that share a hash tag (one
 * account's idempotency keys, one node's ledger) still go together.
 */
const batchesOf = (names: readonly string[], cluster: boolean): number[][] => {
	const groups = new Map<number, number[]>();
	names.forEach((name, n) => {
		const slot = cluster ? hashSlot(name) : 0;
		const group = groups.get(slot);
		if (group) group.push(n);
		else groups.set(slot, [n]);
	});
	const out: number[][] = [];
	for (const group of groups.values()) for (let start = 0; start < group.length; start += REDIS_BATCH) out.push(group.slice(start, start + REDIS_BATCH));
	return out;
};

/**
 * A store in the credential's shared Redis, its keys under `<Redis Key Prefix>:` (with `scope`, the
 * prefix carries that scope's hash tag: a Redis Cluster keeps them in one slot). `holds` names what
 * it keeps in its errors ("the send ledger"). A call that may run twice is tried again (a Redis that
 * blinks: transport/redisStore.ts); one whose second run would count twice (addUpTo) is tried once.
 * Throws RedisUnavailable when the Redis cannot be reached.
 */
export async function inRedis<V>(config: SharedLimitConfig, holds: string, scope?: string): Promise<Store<V>> {
	const { client, key, tried, once } = await openRedisStore(config, holds, scope);
	/** JSON texts for one call: a value written to many keys at once (a send's "under way" marks) is made one text once. */
	const texts = () => {
		let lastValue: V | undefined;
		let lastText = '';
		return (value: V) => (value === lastValue ? lastText : ((lastValue = value), (lastText = JSON.stringify(value))));
	};
	const parsed = (text: string | null) => (text === null ? undefined : (JSON.parse(text) as V));
	const cluster = isCluster(client);
	/** Runs `call` on each batch of `names` (as full Redis keys), REDIS_WAVE batches at a time (a cluster's slots in parallel). */
	const eachBatch = async <A>(names: readonly string[], call: (keys: string[], places: number[]) => Promise<A>): Promise<void> => {
		const keys = names.map(key);
		const batches = batchesOf(keys, cluster);
		for (let first = 0; first < batches.length; first += REDIS_WAVE) {
			await Promise.all(batches.slice(first, first + REDIS_WAVE).map(async (places) => await call(places.map((n) => keys[n]), places)));
		}
	};
	/** A pipeline answers each command's error in its results instead of rejecting. */
	const pipelined = async (commands: (pipeline: ReturnType<typeof client.pipeline>) => void) => {
		const pipeline = client.pipeline();
		commands(pipeline);
		const results = await pipeline.exec();
		const failed = results?.find(([error]) => error);
		if (!results || failed) throw failed?.[0] ?? new Error('no answer');
		return results.map(([, answer]) => answer);
	};
	return {
		async get(names) {
			const out: Array<V | undefined> = new Array(names.length);
			await eachBatch(names, async (keys, places) => (await tried(async () => await client.mget(keys))).forEach((text: string | null, i: number) => (out[places[i]] = parsed(text))));
			return out;
		},
		async set(entries, ttlMs) {
			const json = texts();
			await eachBatch(
				entries.map(([name]) => name),
				async (keys, places) =>
					await tried(async () =>
						await pipelined((p) => keys.forEach((k, i) => (ttlMs === undefined ? p.set(k, json(entries[places[i]][1])) : p.set(k, json(entries[places[i]][1]), 'PX', ttlMs)))),
					),
			);
		},
		async setIfAbsent(entries) {
			const out: boolean[] = new Array(entries.length);
			const json = texts();
			await eachBatch(
				entries.map(([name]) => name),
				async (keys, places) => {
					// Tried again after a lost answer, a SET NX that had gone through answers "held": the concern reads its own value back.
					const answers = await tried(async () =>
						await pipelined((p) =>
							keys.forEach((k, i) => {
								const [, value, ttlMs] = entries[places[i]];
								if (ttlMs === undefined) p.set(k, json(value), 'NX');
								else p.set(k, json(value), 'PX', ttlMs, 'NX');
							}),
						),
					);
					answers.forEach((answer, i) => (out[places[i]] = answer === 'OK'));
				},
			);
			return out;
		},
		async replaceIfToken(name, token, next) {
			return (await tried(async () => await client.eval(REPLACE_IF_TOKEN, 1, key(name), token, next === undefined ? '' : JSON.stringify(next)))) === 1;
		},
		async remove(names) {
			await eachBatch(names, async (keys) => await tried(async () => await client.del(...keys)));
		},
		async addUpTo(name, n, limit, ttlMs) {
			const cap = Number.isFinite(limit) ? limit : Number.MAX_SAFE_INTEGER;
			// Counted once: a second try after a lost answer could count twice.
			const after = Number(await once(async () => await client.eval(ADD_UP_TO, 1, key(name), n, cap, ttlMs)));
			return after < 0 ? { added: false, before: -1 - after } : { added: true, before: after - n };
		},
		subtract(name, n) {
			if (n > 0) void client.decrby(key(name), n).catch(() => undefined);
		},
	};
}
