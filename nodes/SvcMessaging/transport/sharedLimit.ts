import Bottleneck, { type BottleneckSettings } from '../platform/bottleneck';
import { randomBytes } from 'crypto';

import {
	awaitConnection,
	bottleneckConnection,
	bottleneckScriptWords,
	quietLateErrors,
	redisAddress,
	RedisConstructor,
	RedisUnavailable,
	type RedisClient,
	type SharedLimitConfig,
} from './redis';
import { RATE_READING } from './service';
import { slotLease, type SlotLease } from './slotLease';

/** Bottleneck.updateSettings returns a promise at run time (its typings say otherwise). */
export async function applySettings(bottleneck: Bottleneck, settings: BottleneckSettings): Promise<void> {
	await (bottleneck.updateSettings(settings) as unknown as Promise<Bottleneck>);
}


/** A published shrink counts this long after its last renewal. */
const SHRINK_TTL_MS = 60 * 60_000;
/** Keeps the least of the published shrinks (a member per process, scored by its shrink, with its time). */
const SHARE_SHRINK = `
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])
redis.call('hset', KEYS[2], ARGV[1], ARGV[3])
local all = redis.call('hgetall', KEYS[2])
for i = 1, #all, 2 do
  if tonumber(all[i + 1]) < tonumber(ARGV[3]) - tonumber(ARGV[4]) then
    redis.call('zrem', KEYS[1], all[i])
    redis.call('hdel', KEYS[2], all[i])
  end
end
redis.call('pexpire', KEYS[1], ARGV[4])
redis.call('pexpire', KEYS[2], ARGV[4])
return redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')[2]`;

export interface ClusterStore {
	bottleneck: Bottleneck;
	/** This process's slots are leases, renewed while they run. */
	lease: SlotLease;
	/** Holds every process's requests on this key until `waitMs` from now (extends, never shortens). */
	extendPause(waitMs: number): Promise<void>;
	/**
	 * Publishes this process's shrink of a slot's hold (roundTrips.ts) and returns the least any
	 * process on the key published in the last SHRINK_TTL_MS: the next request on a slot may come
	 * from a process nearer the service, so every process holds as long as the nearest needs.
	 */
	sharedShrink(ownMs: number): Promise<number>;
	/** Milliseconds left of the key's pause, 0 when none. */
	pauseRemainingMs(): Promise<number>;
	/** Whether the key's limit is strict as this process joins (the credential, or learned before). */
	readonly strictAtJoin: boolean;
	/** Whether a process on the key learned that the service counts strictly (rateReading.ts). */
	learnedStrict(): Promise<boolean>;
	/** Keeps for every process on the key, RATE_READING.strictKeptMs, that the service counts strictly. */
	learnStrict(): Promise<void>;
	/** Called once when Redis fails (or the store is closed); the limiter is then unusable. */
	onFailure(listener: (error: RedisUnavailable) => void): void;
	/** Marks the store failed by `error` (a Redis error seen by a request); returns the failure. */
	fail(error: unknown): RedisUnavailable;
	close(): Promise<void>;
}

/**
 * Connects to Redis and joins (or creates) the key's clustered Bottleneck. Fails within
 * CONNECT_TIMEOUT_MS with a message naming the Redis host and the setting. Every n8n process on
 * the key then shares its spacing, look-ahead, pause and slowdown; and, when `start.learns`, what any
 * of them learned of the reading (rateReading.ts: `settingsFor` gives the Bottleneck's settings).
 */
export async function joinCluster(
	config: SharedLimitConfig,
	id: string,
	settingsFor: (strict: boolean) => { minTime: number; maxConcurrent: number },
	start: { strict: boolean; learns: boolean },
): Promise<ClusterStore> {
	const where = redisAddress(config);
	const connection = new Bottleneck.IORedisConnection({ Redis: RedisConstructor, ...bottleneckConnection(config) });
	// At run time `ready` is a promise and `client` the ioredis client (bottleneck.d.ts says otherwise).
	const raw = connection as unknown as { ready: Promise<unknown>; client: RedisClient; subscriber: RedisClient };
	quietLateErrors(raw.client);
	quietLateErrors(raw.subscriber);
	bottleneckScriptWords(connection);
	let failed: RedisUnavailable | undefined;
	const listeners: Array<(error: RedisUnavailable) => void> = [];
	const fail = (error: unknown): RedisUnavailable => {
		if (failed) return failed;
		failed = new RedisUnavailable(`Lost the connection to Redis at ${where}, which holds the shared rate limit`, error);
		void connection.disconnect(false);
		for (const listener of listeners.splice(0)) listener(failed);
		return failed;
	};
	// A failed connection is closed; its RedisUnavailable goes on unchanged to the node-facing layer,
	// which turns it into a NodeOperationError (transport/request.ts sharedLimitError).
	let connected = false;
	try {
		await awaitConnection(config, raw.ready, (listener) => connection.on('error', listener), 'the shared rate limit');
		connected = true;
	} finally {
		if (!connected) await connection.disconnect(false);
	}
	const client = raw.client;
	// The id is `<prefix>:limiter:<digest>`, its prefix hash-tagged in a cluster (scopedPrefix): the
	// keys of the scripts below then share the slot of Bottleneck's own.
	const at = id.lastIndexOf(':limiter:');
	const [prefix, digestPart] = [id.slice(0, at), id.slice(at + ':limiter:'.length)];
	const pauseKey = `${prefix}:pause:${digestPart}`;
	// No API key in it: a digest of it and the rate, like every key here.
	const strictKey = `${prefix}:strict:${digestPart}`;
	let knownStrict = start.strict;
	let settings = settingsFor(knownStrict);
	const bottleneck = new Bottleneck({ id, datastore: 'ioredis', connection, clearDatastore: false, ...settings });
	bottleneck.on('error', (error: unknown) => void fail(error));
	connection.on('error', (error: unknown) => void fail(error));
	const setUp = async () => {
		// Unreadable (a Redis user without the key, set up before it existed): not learned; the limit works.
		if (start.learns && !knownStrict && (await client.exists(strictKey).catch(() => 0))) settings = settingsFor((knownStrict = true));
		await bottleneck.ready();
		// Settings persist in Redis: a slowdown left by a process that stopped must not outlive it.
		await applySettings(bottleneck, settings);
	};
	const setUpFailure = await setUp().then(
		() => undefined,
		(error: unknown) => ({ error }),
	);
	if (setUpFailure) {
		await connection.disconnect(false);
		throw new RedisUnavailable(`Could not set up the shared rate limit in Redis at ${where}`, setUpFailure.error);
	}

	// This process's member in the key's published shrinks (random: no host or process name in Redis).
	const member = randomBytes(8).toString('hex');
	return {
		strictAtJoin: knownStrict,
		bottleneck,
		lease: slotLease(bottleneck, id, client, () => !failed),
		async sharedShrink(ownMs) {
			const keys = [`${prefix}:shrink:${digestPart}`, `${prefix}:shrink-at:${digestPart}`];
			const least = await client.eval(SHARE_SHRINK, 2, ...keys, member, String(ownMs), String(Date.now()), String(SHRINK_TTL_MS));
			return Math.min(ownMs, Number(least ?? ownMs));
		},
		async extendPause(waitMs) {
			const left = await client.pttl(pauseKey);
			if (left < waitMs) await client.set(pauseKey, '1', 'PX', Math.max(1, Math.ceil(waitMs)));
		},
		async pauseRemainingMs() {
			return Math.max(0, await client.pttl(pauseKey));
		},
		async learnedStrict() {
			return knownStrict || (knownStrict = (await client.exists(strictKey).catch(() => 0)) > 0);
		},
		async learnStrict() {
			knownStrict = true;
			await client.set(strictKey, '1', 'PX', RATE_READING.strictKeptMs);
		},
		onFailure(listener) {
			if (failed) listener(failed);
			else listeners.push(listener);
		},
		fail,
		async close() {
			fail('closed by this process');
		},
	};
}
