/**
 * The credential's Redis settings as the nodes read them (transport/redisConfig.ts): Redis Cluster
 * Nodes, the CA certificate, and the hash tags that keep a multi-key step in one slot of a cluster.
 */
import { RedisUnavailable, scopedPrefix, sharedLimitOf } from '../../nodes/SvcMessaging/transport/redis';
import { clusterOptions, redisClientOptions } from '../../nodes/SvcMessaging/transport/redis';

const read = (fields: Record<string, unknown>) => sharedLimitOf({ sharedRateLimit: true, redisHost: 'redis.internal', ...fields })!;
const refusal = (fields: Record<string, unknown>) => {
	try {
		read(fields);
	} catch (error) {
		expect(error).toBeInstanceOf(RedisUnavailable);
		return `${(error as RedisUnavailable).message} ${(error as RedisUnavailable).description}`;
	}
	throw new Error('not refused');
};
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ0FfVGVzdF9DQV8xMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw\nAAAA\n-----END CERTIFICATE-----\n';

describe('Redis Cluster Nodes', () => {
	it("reads n8n's QUEUE_BULL_REDIS_CLUSTER_NODES form, and commas, spaces and new lines between entries", () => {
		expect(read({ redisClusterNodes: 'redis-1:6379,redis-2:6380' }).clusterNodes).toEqual([{ host: 'redis-1', port: 6379 }, { host: 'redis-2', port: 6380 }]);
		expect(read({ redisClusterNodes: ' 10.0.0.1:7000, 10.0.0.2:7001\n[::1]:7002 ' }).clusterNodes).toEqual([
			{ host: '10.0.0.1', port: 7000 },
			{ host: '10.0.0.2', port: 7001 },
			{ host: '::1', port: 7002 },
		]);
		expect(read({ redisClusterNodes: '' }).clusterNodes).toBeUndefined();
	});

	it.each(['redis://:pw-in-url@10.0.0.1:7000', 'user:pw-in-url@10.0.0.1:7000', '10.0.0.1', '10.0.0.1:pw-in-url', '10.0.0.1:70000'])('refuses %s by its position, never quoting it', (entry) => {
		const text = refusal({ redisClusterNodes: `10.0.0.9:7000,${entry}` });
		expect(text).toMatch(/"Redis Cluster Nodes" entry 2 of 2 is not host:port/);
		expect(text).not.toContain('pw-in-url');
	});

	it('a database other than 0 is refused with a cluster (a cluster has database 0 only)', () => {
		expect(refusal({ redisClusterNodes: 'a:1', redisDatabase: 2 })).toMatch(/"Redis Database" must be 0 with "Redis Cluster Nodes"/);
		expect(refusal({ redisClusterNodes: 'a:1', redisHost: 'redis://:pw@h:1/3' })).not.toContain('pw');
	});

	it('a cluster client gets the node options of one Redis, without host, port or database', () => {
		const config = read({ redisClusterNodes: 'a:1', redisPassword: 'pw', redisTls: true, redisServerName: 'redis.test' });
		const { redisOptions } = clusterOptions(config);
		expect(redisOptions).toMatchObject({ password: 'pw', tls: { servername: 'redis.test', rejectUnauthorized: true } });
		expect(redisOptions).not.toHaveProperty('host');
		expect(redisOptions).not.toHaveProperty('db');
	});
});

describe('Redis CA Certificate', () => {
	it('a PEM is used as pasted; one that lost its line breaks or holds \\n is rebuilt the same', () => {
		const ca = read({ redisTls: true, redisCa: PEM }).ca!;
		expect(read({ redisTls: true, redisCa: PEM.replace(/\n/g, '') }).ca).toBe(ca);
		expect(read({ redisTls: true, redisCa: PEM.replace(/\n/g, '\\n') }).ca).toBe(ca);
		expect(read({ redisTls: true, redisCa: `${PEM}${PEM}` }).ca).toBe(`${ca}${ca}`);
		expect(ca.split('\n').every((line) => line.length <= 64)).toBe(true);
		expect(redisClientOptions(read({ redisTls: true, redisCa: PEM })).tls).toMatchObject({ ca, rejectUnauthorized: true });
	});

	it('text that holds no certificate is refused, never quoted; an empty field is no CA', () => {
		const text = refusal({ redisTls: true, redisCa: 'secret-looking text' });
		expect(text).toMatch(/"Redis CA Certificate" holds no PEM certificate/);
		expect(text).not.toContain('secret-looking');
		expect(read({ redisTls: true, redisCa: '  ' }).ca).toBeUndefined();
	});

	it('Reject Unauthorized Certificates is on unless turned off', () => {
		expect(redisClientOptions(read({ redisTls: true })).tls).toMatchObject({ rejectUnauthorized: true });
		expect(redisClientOptions(read({ redisTls: true, redisRejectUnauthorized: false })).tls).toMatchObject({ rejectUnauthorized: false });
		expect(redisClientOptions(read({ redisTls: false, redisCa: PEM })).tls).toBeUndefined();
	});
});

describe('hash tags', () => {
	it('in a cluster a scope is one hash tag; on one Redis the keys keep their earlier names', () => {
		const cluster = read({ redisClusterNodes: 'a:1', redisPrefix: 'svc' });
		expect(scopedPrefix(cluster, 'wf\u0000node')).toMatch(/^svc:\{[0-9a-f]{32}\}$/);
		expect(scopedPrefix(cluster, 'wf\u0000node')).toBe(scopedPrefix(cluster, 'wf\u0000node'));
		expect(scopedPrefix(cluster, 'wf\u0000other')).not.toBe(scopedPrefix(cluster, 'wf\u0000node'));
		expect(scopedPrefix(read({ redisPrefix: 'svc' }), 'wf\u0000node')).toBe('svc');
	});
});
