/**
 * A Redis Cluster that speaks TLS only (3 masters on loopback ports, tls-cluster on, certificates for
 * redis.test signed by a CA made at test time: test/helpers/redisCluster.ts), as managed clusters
 * run: the node reaches every master with "Redis CA Certificate" and "Redis TLS Server Name", and a
 * missing name fails clearly, nothing sent. Counted at the emulator.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { SEED_KEYS } from '../emulator';
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { useRedisCluster } from '../helpers/redisCluster';
import { TLS_SERVER_NAME } from '../helpers/redisTls';
import { sendParameters } from '../sms/fixtures';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

const REDIS_PASSWORD = 'cluster-tls-secret-pw-0008';
const emu = useEmulator({ per: 'test', timeScale: 1000 });
const cluster = useRedisCluster({ password: REDIS_PASSWORD, tls: true });
let number = 0;

afterEach(async () => {
	await closeSharedLimiters();
	await closeRedisClients();
});

async function send(fields: ICredentialDataDecryptedObject, items = 3) {
	const phones = Array.from({ length: items }, () => ({ phone: `+2547${String(81_000_000 + number++).padStart(8, '0')}` }));
	const extra = { sharedRateLimit: true, redisClusterNodes: cluster.nodesText, redisPassword: REDIS_PASSWORD, redisTls: true, ...fields };
	try {
		const [out] = await executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url, { plan: 'free', extra }) }, phones);
		return { out };
	} catch (error) {
		const { message, description } = error as Error & { description?: string };
		return { error: { message, description: String(description), text: `${message} ${String(description)}` } };
	}
}

it('with the CA and the server name: the shared limit and the ledger work on every master over TLS, each message once', async () => {
	const { out, error } = await send({ redisCa: cluster.ca!, redisServerName: TLS_SERVER_NAME }, 6);
	expect(error).toBeUndefined();
	expect(out!.filter((item) => item.json.accepted === true)).toHaveLength(6);
	expect(emu.control.messages()).toHaveLength(6);
	// The package's keys reached the masters over TLS (redis-cli speaks TLS to them as well).
	const keys = cluster.nodes.map((_, i) => Number(cluster.cli(['dbsize'], i).trim()));
	expect(keys.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
}, 60_000);

it('without the server name (the certificates are for redis.test, the nodes 127.0.0.1): refused, saying to set it; nothing sent, no secret', async () => {
	const { error } = await send({ redisCa: cluster.ca! });
	expect(error?.message).toMatch(/^Could not connect to Redis at the Redis Cluster of 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+ \(TLS\)/);
	expect(error?.description).toMatch(/set "Redis TLS Server Name" to the name it holds/);
	for (const secret of [REDIS_PASSWORD, SEED_KEYS.free]) expect(error?.text).not.toContain(secret);
	expect(emu.control.requests()).toHaveLength(0);
}, 30_000);
