import { createHash } from 'crypto';
import Redis, { type RedisOptions } from 'ioredis';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The Redis of "Share Rate Limit Across n8n Processes" (the API-key credential). Every n8n process
 * that uses the key (queue-mode main, workers, webhook processes) shares through it the key's rate
 * limit, the send ledger, the trigger's claims on delivery reports and the do-not-send list. Redis
 * holds hashes of keys, phone numbers and texts (the do-not-send list: the numbers themselves, which
 * the user reads back), never an API key, password or secret.
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

export { Redis as RedisConstructor };

/** How long the first connection may take before the node gives up (nothing sent). */
export const CONNECT_TIMEOUT_MS = 5_000;
/** The longest a Redis command may take before the node gives up on Redis. */
export const COMMAND_TIMEOUT_MS = 5_000;

export const SHARED_LIMIT_SETTING = 'SVC Messaging API credential → "Share Rate Limit Across n8n Processes"';

export function sharedLimitOf(credentials: IDataObject): SharedLimitConfig | undefined {
	if (credentials.sharedRateLimit !== true) return undefined;
	const config: SharedLimitConfig = {
		host: String(credentials.redisHost || 'localhost').trim(),
		port: Number(credentials.redisPort) || 6379,
		user: String(credentials.redisUser ?? ''),
		password: String(credentials.redisPassword ?? ''),
		database: Number(credentials.redisDatabase) || 0,
		tls: credentials.redisTls === true,
		keyPrefix: String(credentials.redisPrefix || 'svc-messaging').trim(),
	};
	return { ...config, ...hostParts(config.host) };
}

/**
 * Managed Redis dashboards hand out URLs: "Redis Host" may hold `redis://user:password@host:port/db`
 * (`rediss://` for TLS; `user:password@host` without a scheme, `host:port`), and what the URL states
 * replaces the other fields. The value is never quoted in an error: it may hold the password.
 */
function hostParts(host: string): Partial<SharedLimitConfig> {
	if (/^[^\s:@/]+:\d{1,5}$/.test(host)) {
		const [name, port] = host.split(':');
		return { host: name, port: Number(port) };
	}
	const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(host)?.[1].toLowerCase();
	if (!scheme && !host.includes('@')) return {};
	if (scheme && scheme !== 'redis' && scheme !== 'rediss') {
		throw new RedisUnavailable('"Redis Host" holds a URL that is not a Redis URL', `the URL starts with ${scheme}://; enter the Redis server's host name, or a redis:// or rediss:// URL`, true);
	}
	const url = urlOf(scheme ? host : `redis://${host}`);
	if (!url) {
		throw new RedisUnavailable('"Redis Host" holds a URL that cannot be read', 'enter the host name alone (and the port, user and password in their own fields), or a whole redis://user:password@host:port/database URL', true);
	}
	const database = url.pathname.replace(/^\/+|\/+$/g, '');
	if (database !== '' && !/^\d{1,5}$/.test(database)) {
		throw new RedisUnavailable('"Redis Host" holds a URL whose path is not a database number', 'a Redis URL ends with /0, /1, … (the database), or with no path', true);
	}
	const parts: Partial<SharedLimitConfig> = { host: url.hostname.replace(/^\[|\]$/g, '') };
	if (url.port) parts.port = Number(url.port);
	if (url.username) parts.user = decoded(url.username);
	if (url.password) parts.password = decoded(url.password);
	if (database !== '') parts.database = Number(database);
	if (scheme === 'rediss') parts.tls = true;
	return parts;
}

function urlOf(text: string): URL | undefined {
	try {
		return new URL(text);
	} catch {
		return undefined;
	}
}

/** A URL's user or password as typed: `%40` is `@`; a stray `%` stays as it is. */
function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** Where the config points, for messages (no user or password). */
export function redisAddress(config: SharedLimitConfig): string {
	return `${config.host}:${config.port} (database ${config.database}${config.tls ? ', TLS' : ''})`;
}

/** Identifies a connection in this process's maps: the address, prefix and a hash of the login. */
export function connectionId(config: SharedLimitConfig): string {
	return `${redisAddress(config)}\u0000${config.keyPrefix}\u0000${digest(`${config.user}\u0000${config.password}`)}`;
}

/** A short SHA-256 hex digest: what Redis keys carry instead of keys, numbers or texts. */
export function digest(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** Redis could not be used: nothing was sent for the request that gets this. */
export class RedisUnavailable extends Error {
	readonly description: string;

	/**
	 * `reason` (Redis's words) goes in the description: n8n rewrites messages naming error codes.
	 * `setting`: the reason is this package's own (a Redis setting it cannot use), not Redis's.
	 */
	constructor(message: string, reason: unknown, setting = false) {
		super(message);
		this.description = `${setting ? String(reason) : `Redis said: ${reasonOf(reason)}`}. Nothing was sent for this item. Check the Redis settings in the ${SHARED_LIMIT_SETTING}, or turn that setting off to limit the rate per n8n process.`;
	}
}

/**
 * Redis's own words about the failure, without anything that could be a secret: a URL's or a
 * `user:password@host` login part is dropped, whatever the scheme.
 */
export function reasonOf(error: unknown): string {
	const message = String((error as Error)?.message ?? error ?? 'no answer');
	return message.replace(/([a-z][a-z0-9+.-]*:\/\/)?\S*@/gi, (_login, scheme: string | undefined) => scheme ?? '');
}

export function redisClientOptions(config: SharedLimitConfig): RedisOptions {
	return {
		host: config.host,
		port: config.port,
		username: config.user || undefined,
		password: config.password || undefined,
		db: config.database,
		tls: config.tls ? {} : undefined,
		connectTimeout: CONNECT_TIMEOUT_MS,
		// A Redis that keeps the connection open but stops answering must not hang an execution (and
		// hold a worker slot) forever: every command fails after this long, and the waiting requests
		// fail unsent with "Lost the connection to Redis".
		commandTimeout: COMMAND_TIMEOUT_MS,
		// Queued commands fail soon after a lost connection instead of waiting for it to return.
		maxRetriesPerRequest: 1,
		retryStrategy: (times: number) => Math.min(times * 200, 1_000),
	};
}

/**
 * Waits until `ready` (the connection is up), at most CONNECT_TIMEOUT_MS; a refused login ends
 * the wait at once (waiting will not fix it). Throws RedisUnavailable naming the host.
 */
export async function awaitConnection(
	config: SharedLimitConfig,
	ready: Promise<unknown>,
	onError: (listener: (error: unknown) => void) => void,
	purpose: string,
): Promise<void> {
	let lastError: unknown;
	let refusedLogin: (() => void) | undefined;
	onError((error) => {
		lastError = error;
		if (/WRONGPASS|NOAUTH|NOPERM|invalid password/i.test(reasonOf(error))) refusedLogin?.();
	});
	const connected = await Promise.race([
		ready.then(() => true),
		sleep(CONNECT_TIMEOUT_MS).then(() => false),
		new Promise<boolean>((resolve) => (refusedLogin = () => resolve(false))),
	]);
	if (!connected) {
		throw new RedisUnavailable(
			`Could not connect to Redis at ${redisAddress(config)} for ${purpose}`,
			lastError ?? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`,
		);
	}
}

const clients = new Map<string, Promise<Redis>>();

/**
 * One plain client per Redis in this process (send ledger, trigger claims). A client that loses its
 * connection keeps reconnecting; commands meanwhile fail fast (maxRetriesPerRequest).
 */
export async function redisClient(config: SharedLimitConfig, purpose: string): Promise<Redis> {
	const id = connectionId(config);
	let client = clients.get(id);
	if (!client) {
		client = (async () => {
			const redis = new Redis({ ...redisClientOptions(config), lazyConnect: true });
			const ready = new Promise((resolve) => redis.once('ready', resolve));
			redis.connect().catch(() => undefined);
			// A failed connection is closed; its RedisUnavailable goes on unchanged to the node-facing
			// layer, which turns it into a NodeOperationError (transport/request.ts, helpers/sendRecovery.ts).
			let connected = false;
			try {
				await awaitConnection(config, ready, (listener) => redis.on('error', listener), purpose);
				connected = true;
			} finally {
				if (!connected) redis.disconnect();
			}
			return redis;
		})();
		clients.set(id, client);
		client.catch(() => clients.delete(id));
	}
	return await client;
}

/** Closes this process's plain clients (tests and benchmarks end with this). */
export async function closeRedisClients(): Promise<void> {
	const open = [...clients.values()];
	clients.clear();
	await Promise.all(open.map(async (client) => (await client.catch(() => undefined))?.disconnect()));
}
