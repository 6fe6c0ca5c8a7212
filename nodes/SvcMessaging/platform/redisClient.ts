import Redis, { type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * The Redis client library, reached only through this file: the self-hosted package uses ioredis
 * (a declared dependency). The n8n Cloud edition compiles cloud/platform/redisClient.ts in its
 * place, which has no Redis (n8n Cloud offers community nodes no Redis, and verified nodes may not
 * depend on a client library). Imported, then exported: n8n's scanner reports an import declaration.
 */
export { Redis, type ClusterOptions, type RedisOptions };
