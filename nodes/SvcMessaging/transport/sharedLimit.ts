import Bottleneck from 'bottleneck';
import { createHash } from 'crypto';
import Redis from 'ioredis';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The Redis behind "Share Rate Limit Across n8n Processes" (the API-key credential): every n8n
 * process that uses the key (queue-mode main, workers, webhook processes) then paces it through one
 * Bottleneck clustered on that Redis. Redis holds a hash of the key, never the key itself.
 */
export interface SharedLimitConfig {
	host: string;
	port: number;
	user: string;
	password: string;
	database: number;
	tls: boolean;
	keyPrefix: string;
}

/** How long the first connection may take before the node gives up (nothing sent). */
const CONNECT_TIMEOUT_MS = 5_000;
/** A registered-but-unfinished gate of a crashed process stops counting after this long. */
export const GATE_EXPIRATION_MS = 10_000;

export const SHARED_LIMIT_SETTING = 'SVC Messaging API credential → "Share Rate Limit Across n8n Processes"';

export function sharedLimitOf(credentials: IDataObject): SharedLimitConfig | undefined {
	if (credentials.sharedRateLimit !== true) return undefined;
	return {
		host: String(credentials.redisHost || 'localhost').trim(),
		port: Number(credentials.redisPort) || 6379,
		user: String(credentials.redisUser ?? ''),
		password: String(credentials.redisPassword ?? ''),
		database: Number(credentials.redisDatabase) || 0,
		tls: credentials.redisTls === true,
		keyPrefix: String(credentials.redisPrefix || 'svc-messaging').trim(),
	};
}

/** Where the config points, for messages and map keys (no user or password). */
export function redisAddress(config: SharedLimitConfig): string {
	return `${config.host}:${config.port} (database ${config.database}${config.tls ? ', TLS' : ''})`;
}

/** The key's identity in Redis: a hash of base URL and API key. */
export function keyHash(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\u0000${apiKey}`).digest('hex').slice(0, 32);
}

/** Redis could not be used: nothing was sent for the request that gets this. */
export class SharedLimitUnavailable extends Error {
	readonly description: string;

	/** `reason` (Redis's words) goes in the description: n8n rewrites messages naming error codes. */
	constructor(message: string, reason: unknown) {
		super(message);
		this.description = `Redis said: ${reasonOf(reason)}. Nothing was sent for this item. Check the Redis settings in the ${SHARED_LIMIT_SETTING}, or turn that setting off to limit the rate per n8n process.`;
	}
}

/** Bottleneck.updateSettings returns a promise at run time (its typings say otherwise). */
export async function applySettings(bottleneck: Bottleneck, settings: Bottleneck.ConstructorOptions): Promise<void> {
	await (bottleneck.updateSettings(settings) as unknown as Promise<Bottleneck>);
}

/** Redis's own words about the failure, without anything that could be a secret. */
function reasonOf(error: unknown): string {
	const message = String((error as Error)?.message ?? error ?? 'no answer');
	return message.replace(/redis:\/\/[^@\s]*@/g, 'redis://');
}

export interface ClusterStore {
	bottleneck: Bottleneck;
	/** Holds every process's requests on this key until `waitMs` from now (extends, never shortens). */
	extendPause(waitMs: number): Promise<void>;
	/** Milliseconds left of the key's pause, 0 when none. */
	pauseRemainingMs(): Promise<number>;
	/** Called once when Redis fails (or the store is closed); the limiter is then unusable. */
	onFailure(listener: (error: SharedLimitUnavailable) => void): void;
	/** Marks the store failed by `error` (a Redis error seen by a request); returns the failure. */
	fail(error: unknown): SharedLimitUnavailable;
	close(): Promise<void>;
}

/**
 * Connects to Redis and joins (or creates) the key's clustered Bottleneck. Fails within
 * CONNECT_TIMEOUT_MS with a message naming the Redis host and the setting.
 */
export async function joinCluster(
	config: SharedLimitConfig,
	id: string,
	settings: { minTime: number; maxConcurrent: number },
): Promise<ClusterStore> {
	const where = redisAddress(config);
	const connection = new Bottleneck.IORedisConnection({
		Redis,
		clientOptions: {
			host: config.host,
			port: config.port,
			username: config.user || undefined,
			password: config.password || undefined,
			db: config.database,
			tls: config.tls ? {} : undefined,
			connectTimeout: CONNECT_TIMEOUT_MS,
			// Queued commands fail soon after a lost connection instead of waiting for it to return.
			maxRetriesPerRequest: 1,
			retryStrategy: (times: number) => Math.min(times * 200, 1_000),
		},
	});
	// At run time `ready` is a promise and `client` the ioredis client (bottleneck.d.ts says otherwise).
	const raw = connection as unknown as { ready: Promise<unknown>; client: Redis };
	let lastError: unknown;
	let failed: SharedLimitUnavailable | undefined;
	const listeners: Array<(error: SharedLimitUnavailable) => void> = [];
	const fail = (error: unknown): SharedLimitUnavailable => {
		if (failed) return failed;
		failed = new SharedLimitUnavailable(`Lost the connection to Redis at ${where}, which holds the shared rate limit`, error);
		void connection.disconnect(false);
		for (const listener of listeners.splice(0)) listener(failed);
		return failed;
	};
	// A refused login will not get better by waiting: stop at once.
	let refusedLogin: (() => void) | undefined;
	connection.on('error', (error: unknown) => {
		lastError = error;
		if (/WRONGPASS|NOAUTH|NOPERM|invalid password/i.test(reasonOf(error))) refusedLogin?.();
	});

	const connected = await Promise.race([
		raw.ready.then(() => true),
		sleep(CONNECT_TIMEOUT_MS).then(() => false),
		new Promise<boolean>((resolve) => (refusedLogin = () => resolve(false))),
	]);
	if (!connected) {
		await connection.disconnect(false);
		throw new SharedLimitUnavailable(`Could not connect to Redis at ${where} for the shared rate limit`, lastError ?? 'no answer within 5 s');
	}
	const bottleneck = new Bottleneck({ id, datastore: 'ioredis', connection, clearDatastore: false, ...settings });
	bottleneck.on('error', (error: unknown) => void fail(error));
	connection.on('error', (error: unknown) => void fail(error));
	try {
		await bottleneck.ready();
		// Settings persist in Redis: a slowdown left by a process that stopped must not outlive it.
		await applySettings(bottleneck, settings);
	} catch (error) {
		await connection.disconnect(false);
		throw new SharedLimitUnavailable(`Could not set up the shared rate limit in Redis at ${where}`, error);
	}

	const client = raw.client;
	const pauseKey = `${config.keyPrefix}:pause:${id.slice(id.lastIndexOf(':limiter:') + ':limiter:'.length)}`;
	return {
		bottleneck,
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
