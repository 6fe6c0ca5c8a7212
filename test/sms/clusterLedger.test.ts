/**
 * The send ledger in a real Redis Cluster ("Redis Cluster Nodes": 3 masters on loopback ports,
 * test/helpers/redisCluster.ts): a failed execution retried on another worker (this process's
 * ledger forgotten) sends nobody twice. The ledger reads and writes many entries in one step
 * (MGET, pipelines): in a cluster they must share a hash slot, or Redis refuses them (CROSSSLOT).
 * Every message is counted at the emulator.
 */
import Redis from 'ioredis';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { useRedisCluster } from '../helpers/redisCluster';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendBulkParameters, sendParameters } from './fixtures';

const REDIS_PASSWORD = 'cluster-ledger-secret-pw-0007';
const emu = useEmulator({ per: 'test' });
const cluster = useRedisCluster({ password: REDIS_PASSWORD });

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + i).padStart(8, '0')}` }));
const onCluster = () => apiKeyCredentials(emu.url, { plan: 'free', redis: { port: 6379 }, extra: { redisClusterNodes: cluster.nodesText, redisPassword: REDIS_PASSWORD } });
const countOf = (list: string[]) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
const smsNumbers = () => emu.control.messages().map((m) => m.phoneNumber);

async function attempt(setup: NodeSetup, items: object[]) {
	try {
		return { output: (await executeNode(setup, items as never))[0] };
	} catch (error) {
		return { error: error as Error & { description?: string } };
	}
}

it('Send Bulk, 150 recipients, the 2nd call answers 500; retried on another worker: the 100 accepted are not sent again, named from the ledger', async () => {
	const bulk = (options = {}) => sendBulkParameters({ variablesSource: 'none', message: 'Flash sale today', options });
	const items = phones(61_000_000, 150);
	emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
	emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
	const first = await attempt({ parameters: bulk(), credentials: onCluster(), executionId: 'cluster-bulk-a' }, items);
	expect(first.error?.message).toMatch(/50 recipient\(s\) were not accepted .*100 were accepted/);

	clearLocalLedger(); // what another worker starts with
	const retry = await attempt({ parameters: bulk({ resendUnknownOutcome: true }), credentials: onCluster(), executionId: 'cluster-bulk-b', mode: 'retry' }, items);
	expect(retry.error).toBeUndefined();
	const earlier = retry.output!.filter((i) => i.json.alreadySent === true);
	expect(earlier).toHaveLength(100);
	// The cluster's ledger answered: it names the execution that sent them (n8n's own marks could not).
	for (const item of earlier) expect(item.json.sentIn).toMatchObject({ executionId: 'cluster-bulk-a' });
	const counts = countOf(smsNumbers());
	expect(counts.size).toBe(150);
	expect([...counts.values()].every((n) => n === 1)).toBe(true);
}, 90_000);

it('SMS → Send, a connection dropped after the service accepted; retried on another worker: refused as of unknown outcome, never sent twice', async () => {
	const items = phones(62_000_000, 10);
	emu.control.addFault({ kind: 'slow', delayMs: 1, count: 4, pathPrefix: '/api/sms/send-api' });
	emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api' });
	const keepGoing = { onError: 'continueRegularOutput' } as const;
	const first = await attempt({ parameters: sendParameters(), credentials: onCluster(), executionId: 'cluster-send-a', settings: keepGoing }, items);
	expect(first.output!.filter((i) => i.json.accepted === true)).toHaveLength(9);
	expect(smsNumbers()).toHaveLength(10);

	clearLocalLedger();
	const retry = await attempt({ parameters: sendParameters(), credentials: onCluster(), executionId: 'cluster-send-b', mode: 'retry', settings: keepGoing }, items);
	expect(retry.output!.filter((i) => i.json.alreadySent === true)).toHaveLength(9);
	expect(retry.output!.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME')).toHaveLength(1);
	expect(smsNumbers()).toHaveLength(10);
	expect([...countOf(smsNumbers()).values()].every((n) => n === 1)).toBe(true);
}, 60_000);

it("a workflow node's ledger keys (entries, finished runs, epoch) share one hash slot", async () => {
	await attempt({ parameters: sendParameters(), credentials: onCluster(), executionId: 'cluster-slot-a' }, phones(63_000_000, 5));
	const client = new Redis.Cluster(cluster.nodes, { redisOptions: { password: REDIS_PASSWORD } });
	await new Promise((ready) => client.once('ready', ready));
	try {
		const keys = (await Promise.all(client.nodes('master').map(async (node) => await node.keys('svc-messaging:{*}:*')))).flat();
		const byTag = new Map<string, string[]>();
		for (const key of keys) byTag.set(/\{([^}]+)\}/.exec(key)![1], [...(byTag.get(/\{([^}]+)\}/.exec(key)![1]) ?? []), key]);
		const ledgers = [...byTag.values()].filter((group) => group.some((key) => key.includes(':sent:')));
		expect(ledgers.length).toBeGreaterThan(0);
		for (const group of ledgers) {
			expect(group.some((key) => key.endsWith(':epoch'))).toBe(true);
			const slots = new Set(await Promise.all(group.map(async (key) => Number(await client.cluster('KEYSLOT', key)))));
			expect(slots.size).toBe(1);
		}
	} finally {
		client.disconnect();
	}
}, 60_000);
