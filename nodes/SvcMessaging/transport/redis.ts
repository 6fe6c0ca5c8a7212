import { sleep } from 'n8n-workflow';

import { Redis, type ClusterOptions, type RedisOptions } from '../platform/redisClient';
import { connectionId, isCertificateError, reasonOf, redisAddress, RedisUnavailable, type SharedLimitConfig } from './redisConfig';

export {
	connectionId,
	digest,
	reasonOf,
	redisAddress,
	RedisUnavailable,
	scopedPrefix,
	SHARED_LIMIT_SETTING,
	sharedLimitOf,
	type SharedLimitConfig,
} from './redisConfig';
export { Redis as RedisConstructor };

/** A client of one Redis, or of a Redis Cluster ("Redis Cluster Nodes"). */
export type RedisClient = Redis | InstanceType<typeof Redis.Cluster>;

/** How long the first connection may take before the node gives up (nothing sent). */
export const CONNECT_TIMEOUT_MS = 5_000;
/** The longest a Redis command may take before the node gives up on Redis. */
export const COMMAND_TIMEOUT_MS = 5_000;

export function redisClientOptions(config: SharedLimitConfig): RedisOptions {
	return {
		host: config.host,
		port: config.port,
		username: config.user || undefined,
		password: config.password || undefined,
		db: config.database,
		tls: config.tls ? { ca: config.ca, rejectUnauthorized: config.rejectUnauthorized !== false, servername: config.servername } : undefined,
		connectTimeout: CONNECT_TIMEOUT_MS,
		// A Redis that keeps the connection open but stops answering must not hang an execution (and
		// hold a worker slot) forever: every command fails after this long, and the waiting requests
		// fail unsent with "Lost the connection to Redis".
		commandTimeout: COMMAND_TIMEOUT_MS,
		// Queued commands fail soon after a lost connection instead of waiting for it to return.
		maxRetriesPerRequest: 1,
		retryStrategy,
	};
}

const retryStrategy = (times: number) => Math.min(times * 200, 1_000);

/** A Redis Cluster's options: each node's connection as one Redis's (its host and port are the cluster's). */
export function clusterOptions(config: SharedLimitConfig): ClusterOptions {
	const node = redisClientOptions(config);
	delete node.host;
	delete node.port;
	delete node.db;
	return { redisOptions: node, clusterRetryStrategy: retryStrategy };
}

/** Bottleneck's IORedisConnection options: a cluster's nodes, or one Redis. */
export function bottleneckConnection(config: SharedLimitConfig): { clientOptions: RedisOptions | ClusterOptions; clusterNodes?: SharedLimitConfig['clusterNodes'] } {
	return config.clusterNodes ? { clientOptions: clusterOptions(config), clusterNodes: config.clusterNodes } : { clientOptions: redisClientOptions(config) };
}

/** Bottleneck 2.19.5's script errors it acts on (RedisDatastore.runScript), by the words it compares. */
const BOTTLENECK_SIGNALS = /^ERR (SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT)$/;

/**
 * Redis 7 answers a script's error_reply as "ERR <words>", and Bottleneck compares the words alone:
 * it then no longer sees that a Redis restarted empty (SETTINGS_KEY_NOT_FOUND: it would set its
 * limiter up again) or forgot its client (UNKNOWN_CLIENT), and every job fails until the limiter is
 * joined again. Its IORedisConnection's scripts are given back the words it expects.
 */
export function bottleneckScriptWords(connection: object): void {
	type Callback = (error: unknown, replies: unknown) => void;
	const raw = connection as { __scriptArgs__(name: string, id: string, args: unknown[], callback: Callback): unknown[] };
	const scriptArgs = raw.__scriptArgs__.bind(connection);
	// Bottleneck reads a script's answer through this callback (the command's own promise it leaves alone).
	raw.__scriptArgs__ = (name, id, args, callback) =>
		scriptArgs(name, id, args, (error, replies) => {
			const words = BOTTLENECK_SIGNALS.exec(String((error as Error | undefined)?.message))?.[1];
			if (words) (error as Error).message = words;
			callback(error, replies);
		});
}

/**
 * Waits until `ready` (the connection is up), at most CONNECT_TIMEOUT_MS; a refused login or TLS
 * certificate ends the wait at once (waiting will not fix it). Throws RedisUnavailable naming the host.
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
		if (/WRONGPASS|NOAUTH|NOPERM|invalid password/i.test(reasonOf(error)) || isCertificateError(error)) refusedLogin?.();
	});
	let certificateError: unknown;
	if (config.clusterNodes && config.tls) {
		void clusterTlsError(config).then((error) => {
			if (!isCertificateError(error)) return;
			certificateError = error;
			refusedLogin?.();
		});
	}
	const connected = await Promise.race([
		ready.then(() => true),
		sleep(CONNECT_TIMEOUT_MS).then(() => false),
		new Promise<boolean>((resolve) => (refusedLogin = () => resolve(false))),
	]);
	if (!connected) {
		throw new RedisUnavailable(
			`Could not connect to Redis at ${redisAddress(config)} for ${purpose}`,
			certificateError ?? lastError ?? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`,
		);
	}
}

/**
 * Why a cluster over TLS cannot be reached: ioredis 5.9 drops its nodes' connection errors (a node
 * has ended when its error comes), so a certificate that does not check out shows only as
 * "Connection is closed". One plain connection to the first node says it, at once.
 */
async function clusterTlsError(config: SharedLimitConfig): Promise<unknown> {
	const [{ host, port }] = config.clusterNodes!;
	const probe = new Redis({ ...redisClientOptions(config), host, port, db: 0, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
	quietLateErrors(probe);
	let error: unknown;
	probe.on('error', (cause) => (error ??= cause));
	await probe.connect().catch((cause: unknown) => (error ??= cause));
	probe.disconnect();
	return error;
}

const quieted = new WeakSet<object>();
const ignore = () => undefined;

/**
 * ioredis listens `once` for a connection's error: a TLS handshake that fails can raise a second
 * one (the server's alert after the certificate check failed), which would go unhandled and end
 * the n8n process. Each connection that raised an error gets a listener for any later one.
 */
export function quietLateErrors(client: RedisClient): void {
	// A cluster's nodes' errors never reach an event (clusterTlsError): nothing to listen to there.
	if (!(client instanceof Redis)) return;
	client.on('error', () => {
		const { stream } = client as unknown as { stream?: { on(event: 'error', listener: () => void): unknown } };
		if (stream && !quieted.has(stream)) {
			quieted.add(stream);
			stream.on('error', ignore);
		}
	});
}

const clients = new Map<string, Promise<RedisClient>>();

/**
 * One plain client per Redis in this process (send ledger, trigger claims). A client that loses its
 * connection keeps reconnecting; commands meanwhile fail fast (maxRetriesPerRequest).
 */
export async function redisClient(config: SharedLimitConfig, purpose: string): Promise<RedisClient> {
	const id = connectionId(config);
	let client = clients.get(id);
	if (!client) {
		client = (async () => {
			const redis: RedisClient = config.clusterNodes
				? new Redis.Cluster(config.clusterNodes, { ...clusterOptions(config), lazyConnect: true })
				: new Redis({ ...redisClientOptions(config), lazyConnect: true });
			quietLateErrors(redis);
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

const CRC16_TABLE = Array.from({ length: 256 }, (_, byte) => {
	let crc = byte << 8;
	for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
	return crc;
});

/**
 * A key's hash slot in a Redis Cluster (CRC16 of its hash tag, the text between its first `{` and
 * the next `}` when not empty, else of the whole key, modulo 16384): a multi-key command must keep
 * to one slot (CROSSSLOT), so the stores split their calls by it.
 */
export function hashSlot(key: string): number {
	const open = key.indexOf('{');
	const close = open < 0 ? -1 : key.indexOf('}', open + 1);
	const hashed = Buffer.from(close > open + 1 ? key.slice(open + 1, close) : key);
	let crc = 0;
	for (const byte of hashed) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff];
	return crc % 16384;
}

/** Whether the client speaks to a Redis Cluster. */
export const isCluster = (client: RedisClient): boolean => !(client instanceof Redis);

/** Closes this process's plain clients (tests and benchmarks end with this). */
export async function closeRedisClients(): Promise<void> {
	const open = [...clients.values()];
	clients.clear();
	await Promise.all(open.map(async (client) => (await client.catch(() => undefined))?.disconnect()));
}
