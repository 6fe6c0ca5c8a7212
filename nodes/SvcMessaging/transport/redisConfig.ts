import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { EDITION } from '../platform/edition';

/**
 * The Redis of the API-key credential ("Use Redis", parameter sharedRateLimit). Every n8n process
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
	/** PEM certificates trusted for TLS besides Node's own (a private CA) */
	ca?: string;
	/** false: a TLS certificate that does not check out is accepted anyway */
	rejectUnauthorized?: boolean;
	/** the name the TLS certificate is checked against, when it differs from the host */
	servername?: string;
	/** set: a Redis Cluster, reached through these nodes (host and port are then not used) */
	clusterNodes?: Array<{ host: string; port: number }>;
}

/** The credential's Redis switch, as the form names it (its parameter stays sharedRateLimit: saved credentials keep it). */
export const SHARED_LIMIT_SETTING = 'SVC Messaging API credential → "Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)"';

export function sharedLimitOf(credentials: IDataObject): SharedLimitConfig | undefined {
	// An edition without Redis (n8n Cloud) never names one, whatever a credential holds.
	if (!EDITION.redis || credentials.sharedRateLimit !== true) return undefined;
	const config: SharedLimitConfig = {
		host: String(credentials.redisHost || 'localhost').trim(),
		port: Number(credentials.redisPort) || 6379,
		user: String(credentials.redisUser ?? ''),
		password: String(credentials.redisPassword ?? ''),
		database: Number(credentials.redisDatabase) || 0,
		tls: credentials.redisTls === true,
		keyPrefix: String(credentials.redisPrefix || 'svc-messaging').trim(),
		ca: pemOf(String(credentials.redisCa ?? '')),
		rejectUnauthorized: credentials.redisRejectUnauthorized !== false,
		servername: String(credentials.redisServerName ?? '').trim() || undefined,
		clusterNodes: clusterNodesOf(String(credentials.redisClusterNodes ?? '')),
	};
	const withUrl = { ...config, ...hostParts(config.host) };
	if (withUrl.clusterNodes && withUrl.database !== 0) {
		throw new RedisUnavailable('"Redis Database" must be 0 with "Redis Cluster Nodes"', 'a Redis Cluster has database 0 only; set "Redis Database" to 0 (and no /database in a URL)', true);
	}
	return withUrl;
}

/**
 * "Redis Cluster Nodes" as n8n's QUEUE_BULL_REDIS_CLUSTER_NODES: `host:port` entries separated by
 * commas (spaces and new lines too). An entry is never quoted in an error: a pasted URL may hold
 * a password.
 */
function clusterNodesOf(text: string): SharedLimitConfig['clusterNodes'] {
	const entries = text.split(/[\s,]+/).filter(Boolean);
	if (!entries.length) return undefined;
	return entries.map((entry, i) => {
		const match = /^(\[[0-9a-f:.]+\]|[^\s:@/[\]]+):(\d{1,5})$/i.exec(entry);
		const port = Number(match?.[2]);
		if (!match || port < 1 || port > 65535) {
			throw new RedisUnavailable(`"Redis Cluster Nodes" entry ${i + 1} of ${entries.length} is not host:port`, 'list the nodes as host:port, separated by commas (as QUEUE_BULL_REDIS_CLUSTER_NODES), with the user, password and TLS in their own fields', true);
		}
		return { host: match[1].replace(/^\[|\]$/g, ''), port };
	});
}

/**
 * The PEM certificates of "Redis CA Certificate", rebuilt: a one-line field (or a pasted JSON
 * string) loses the line breaks PEM needs, and `\n` may come as two characters.
 */
function pemOf(text: string): string | undefined {
	const flat = text.replace(/\\n/g, '\n').trim();
	if (!flat) return undefined;
	const blocks = [...flat.matchAll(/-----BEGIN CERTIFICATE-----([\sA-Za-z0-9+/=]*?)-----END CERTIFICATE-----/g)];
	if (!blocks.length) {
		throw new RedisUnavailable('"Redis CA Certificate" holds no PEM certificate', 'paste the CA certificate in PEM form, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----', true);
	}
	return blocks
		.map(([, body]) => `-----BEGIN CERTIFICATE-----\n${(body.replace(/\s+/g, '').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`)
		.join('');
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
	if (config.clusterNodes) return `the Redis Cluster of ${config.clusterNodes.map(({ host, port }) => `${host}:${port}`).join(', ')}${config.tls ? ' (TLS)' : ''}`;
	return `${config.host}:${config.port} (database ${config.database}${config.tls ? ', TLS' : ''})`;
}

/** Identifies a connection in this process's maps: the address, prefix and a hash of the login and TLS settings. */
export function connectionId(config: SharedLimitConfig): string {
	const login = [config.user, config.password, config.ca ?? '', config.servername ?? '', String(config.rejectUnauthorized !== false)].join('\u0000');
	return `${redisAddress(config)}\u0000${config.keyPrefix}\u0000${digest(login)}`;
}

/** A short SHA-256 hex digest: what Redis keys carry instead of keys, numbers or texts. */
export function digest(text: string): string {
	// The first 16 bytes as hex, made directly: a slice of the 64-character hex would keep it alive.
	return createHash('sha256').update(text).digest().toString('hex', 0, 16);
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
		this.description = `${setting ? String(reason) : `Redis said: ${reasonOf(reason)}${certificateHint(reason)}`}. Nothing was sent for this item. Check that this Redis is running and reachable, and the Redis settings in the ${SHARED_LIMIT_SETTING}.`;
	}
}

/**
 * Redis's own words about the failure, without anything that could be a secret: a URL's or a
 * `user:password@host` login part is dropped, whatever the scheme.
 */
export function reasonOf(error: unknown): string {
	// A cluster that found no node says only "Failed to refresh slots cache": its last node's words say why.
	const cause = (error as { lastNodeError?: unknown })?.lastNodeError ?? error;
	const message = String((cause as Error)?.message ?? cause ?? 'no answer');
	return message.replace(/([a-z][a-z0-9+.-]*:\/\/)?\S*@/gi, (_login, scheme: string | undefined) => scheme ?? '');
}

/** Node's codes for a TLS certificate that did not check out (the `code` of the socket's error). */
const CERTIFICATE_CODES = /^(ERR_TLS_CERT_ALTNAME_INVALID|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT(_LOCALLY)?|VERIFY_LEAF_SIGNATURE)|CERT_(HAS_EXPIRED|NOT_YET_VALID|UNTRUSTED|SIGNATURE_FAILURE))$/;

/** The Redis error's own code, a cluster's through its last node error. */
export function codeOf(error: unknown): string {
	const cause = (error as { lastNodeError?: unknown })?.lastNodeError ?? error;
	return String((cause as { code?: unknown })?.code ?? '');
}

/** What to check when Redis's TLS certificate did not check out. */
export function isCertificateError(error: unknown): boolean {
	return CERTIFICATE_CODES.test(codeOf(error));
}

function certificateHint(error: unknown): string {
	if (!isCertificateError(error)) return '';
	return codeOf(error) === 'ERR_TLS_CERT_ALTNAME_INVALID'
		? ' (the certificate is for another name: set "Redis TLS Server Name" to the name it holds)'
		: ' (the certificate is not signed by a CA this n8n trusts: paste the CA in "Redis CA Certificate")';
}

/**
 * The start of the keys a multi-key step uses together (a key's limiter, a workflow node's ledger).
 * In a Redis Cluster a step over keys of several hash slots fails (CROSSSLOT): the scope's digest
 * is then a hash tag, which puts its keys in one slot. On one Redis the keys keep the names of
 * earlier versions, so that a retry across an upgrade finds what was sent before it.
 */
export function scopedPrefix(config: SharedLimitConfig, scope: string): string {
	return config.clusterNodes ? `${config.keyPrefix}:{${digest(scope)}}` : config.keyPrefix;
}
