/**
 * Options → Idempotency Key in a real Redis Cluster ("Redis Cluster Nodes": 3 masters on loopback
 * ports, test/helpers/redisCluster.ts). A send claims and reads its keys in multi-key steps (a
 * pipeline of SET NX, MGET): in a cluster each step keeps to one hash slot, or Redis refuses it
 * (CROSSSLOT) and the whole send failed, nothing sent. Counted at the emulator.
 */
import type { IDataObject } from 'n8n-workflow';
import Redis from 'ioredis';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { useRedisCluster } from '../helpers/redisCluster';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendBulkParameters, sendParameters } from '../sms/fixtures';

const REDIS_PASSWORD = 'cluster-keys-secret-pw-0057';
const emu = useEmulator({ per: 'test' });
const cluster = useRedisCluster({ password: REDIS_PASSWORD });
let run = 0;
beforeEach(() => run++);

const onCluster = () => apiKeyCredentials(emu.url, { redis: { port: 6379, prefix: `keys-${run}` }, extra: { redisClusterNodes: cluster.nodesText, redisPassword: REDIS_PASSWORD } });
const items = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + i).padStart(8, '0')}`, name: 'Amina', key: `order-${base + i}-shipped` }));
const keyed = { idempotencyKey: '={{ $json.key }}' };
const sent = () => emu.control.messages().map((m) => m.phoneNumber);

async function send(parameters: IDataObject, list: IDataObject[], executionId: string) {
	return (await executeNode({ parameters, credentials: onCluster(), executionId }, list))[0].map((item) => item.json);
}

it.each([
	['SMS → Send', 12, () => sendParameters({ options: keyed })],
	['SMS → Send Bulk', 40, () => sendBulkParameters({ options: keyed })],
])('%s, %i items each with its own key: every message sent once; the same items again send none (alreadySent)', async (_, n, parameters) => {
	const list = items(31_000_000 + run * 1000, n);
	const first = await send(parameters(), list, `cluster-keys-${run}-a`);
	expect(first.filter((json) => json.accepted === true)).toHaveLength(n);
	expect(new Set(sent()).size).toBe(n);
	expect(sent()).toHaveLength(n);

	clearLocalLedger(); // another worker: only the cluster knows the keys
	const again = await send(parameters(), list, `cluster-keys-${run}-b`);
	expect(again.filter((json) => json.alreadySent === true)).toHaveLength(n);
	expect(sent()).toHaveLength(n);
}, 60_000);

it("one account's keys share a hash slot: their hash tag is the account's digest", async () => {
	await send(sendParameters({ options: keyed }), items(32_000_000, 5), `cluster-keys-${run}-slot`);
	const client = new Redis.Cluster(cluster.nodes, { redisOptions: { password: REDIS_PASSWORD } });
	await new Promise((ready) => client.once('ready', ready));
	try {
		const keys = (await Promise.all(client.nodes('master').map(async (node) => await node.keys(`keys-${run}:idem:*`)))).flat();
		expect(keys).toHaveLength(5);
		expect(new Set(keys.map((key) => /^keys-\d+:idem:\{([0-9a-f]{32})\}:[0-9a-f]{32}$/.exec(key)?.[1])).size).toBe(1);
	} finally {
		client.disconnect();
	}
}, 60_000);
