/**
 * The n8n Cloud edition has no Redis (replaces nodes/SvcMessaging/platform/redisClient.ts, which
 * re-exports ioredis): n8n Cloud offers community nodes no Redis, and a verified node may not depend
 * on a client library. The credential shows no "Use Redis" (platform/edition.ts), so sharedLimitOf
 * (transport/redisConfig.ts) never names a Redis and nothing here is constructed; the send ledger and
 * Idempotency Keys live in n8n's database as they do without Redis in the self-hosted package.
 */
export type RedisOptions = Record<string, unknown>;
export type ClusterOptions = Record<string, unknown>;

/** Typed loosely on purpose: the shared code's Redis calls type-check and are never reached here. */
type Unreached = ReturnType<typeof JSON.parse>;

/** Stands in for ioredis's client type; constructing it is a programming error, named as such. */
export class Redis {
	[command: string]: Unreached;

	static Cluster = Redis;

	declare on: (event: string, listener: (value: unknown) => void) => this;

	declare once: (event: string, listener: (value: unknown) => void) => this;

	declare pipeline: () => { exec(): Promise<Array<[Error | null, unknown]> | null>; [command: string]: Unreached };

	constructor(...options: unknown[]);
	constructor() {
		throw new Error('The n8n Cloud edition of SVC Messaging has no Redis');
	}
}
