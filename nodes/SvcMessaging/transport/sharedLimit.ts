import Bottleneck from 'bottleneck';
import type Redis from 'ioredis';

import {
	awaitConnection,
	redisAddress,
	redisClientOptions,
	RedisConstructor,
	RedisUnavailable,
	type SharedLimitConfig,
} from './redis';
import { slotLease, type SlotLease } from './slotLease';

/**
 * A slot not renewed at all (slotLease.ts) is given back after this long: longer than a request may
 * take (transport/request.ts times out after 30 s) plus the slot's hold after the answer.
 */
export const SLOT_EXPIRATION_MS = 40_000;

/** Bottleneck.updateSettings returns a promise at run time (its typings say otherwise). */
export async function applySettings(bottleneck: Bottleneck, settings: Bottleneck.ConstructorOptions): Promise<void> {
	await (bottleneck.updateSettings(settings) as unknown as Promise<Bottleneck>);
}


/** How often each process tells Redis it is alive: freed slots reach waiting processes this soon. */
const HEARTBEAT_MS = 1_000;

export interface ClusterStore {
	bottleneck: Bottleneck;
	/** This process's slots are leases, renewed while they run. */
	lease: SlotLease;
	/** Holds every process's requests on this key until `waitMs` from now (extends, never shortens). */
	extendPause(waitMs: number): Promise<void>;
	/** Milliseconds left of the key's pause, 0 when none. */
	pauseRemainingMs(): Promise<number>;
	/** Called once when Redis fails (or the store is closed); the limiter is then unusable. */
	onFailure(listener: (error: RedisUnavailable) => void): void;
	/** Marks the store failed by `error` (a Redis error seen by a request); returns the failure. */
	fail(error: unknown): RedisUnavailable;
	close(): Promise<void>;
}

/**
 * Connects to Redis and joins (or creates) the key's clustered Bottleneck. Fails within
 * CONNECT_TIMEOUT_MS with a message naming the Redis host and the setting. Every n8n process on
 * the key then shares its spacing, look-ahead, pause and slowdown.
 */
export async function joinCluster(
	config: SharedLimitConfig,
	id: string,
	settings: { minTime: number; maxConcurrent: number },
): Promise<ClusterStore> {
	const where = redisAddress(config);
	const connection = new Bottleneck.IORedisConnection({ Redis: RedisConstructor, clientOptions: redisClientOptions(config) });
	// At run time `ready` is a promise and `client` the ioredis client (bottleneck.d.ts says otherwise).
	const raw = connection as unknown as { ready: Promise<unknown>; client: Redis };
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
	const bottleneck = new Bottleneck({ id, datastore: 'ioredis', connection, clearDatastore: false, heartbeatInterval: HEARTBEAT_MS, ...settings });
	bottleneck.on('error', (error: unknown) => void fail(error));
	connection.on('error', (error: unknown) => void fail(error));
	const setUp = async () => {
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

	const client = raw.client;
	const pauseKey = `${config.keyPrefix}:pause:${id.slice(id.lastIndexOf(':limiter:') + ':limiter:'.length)}`;
	return {
		bottleneck,
		lease: slotLease(bottleneck, id, client, () => !failed),
		async extendPause(waitMs) {
			const left = await client.pttl(pauseKey);
			if (left < waitMs) await client.set(pauseKey, '1', 'PX', Math.max(1, Math.ceil(waitMs)));
		},
		async pauseRemainingMs() {
			return Math.max(0, await client.pttl(pauseKey));
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
