/**
 * "Use Redis" (sharedRateLimit) on a real Redis Cluster ("Redis Cluster Nodes", as n8n's
 * QUEUE_BULL_REDIS_CLUSTER_NODES): 3 masters on loopback ports (test/helpers/redisCluster.ts),
 * against the emulator's sliding window (at most N requests in any 1,000 ms). Other n8n processes
 * are isolated copies of the limiter module, as in sharedLimit.test.ts. Every request and message
 * is counted at the emulator. Bottleneck's scripts and ours touch several keys at once: in a
 * cluster they must share a hash slot, or Redis refuses them (CROSSSLOT). The slot leases
 * (transport/slotLease.ts) are renewed and expire there as on one Redis: a child process holds
 * a key's slots and is SIGKILLed (fixtures/slotHolder.ts).
 */
import { spawn } from 'child_process';
import Redis from 'ioredis';
import { join } from 'path';

import { SEED_KEYS } from '../emulator';
import { apiKeyCredentials, STRICT } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { mostInAnySecond, phones, sendFromOther, sendsAt, useLimiterProcesses } from '../helpers/limiterProcesses';
import { executeNode } from '../helpers/n8n';
import { useRedisCluster } from '../helpers/redisCluster';
import { sendParameters } from '../sms/fixtures';
import * as mainLimiter from '../../nodes/SvcMessaging/transport/limiter';
import { sharedLimitOf, type SharedLimitConfig } from '../../nodes/SvcMessaging/transport/redis';
import { LEASE_MS } from '../../nodes/SvcMessaging/transport/slotLease';

const REDIS_PASSWORD = 'cluster-secret-pw-0003';
const emu = useEmulator({ per: 'test', timeScale: 1000, rateLimit: 'sliding-window' });
const cluster = useRedisCluster({ password: REDIS_PASSWORD });
const { otherProcess } = useLimiterProcesses();

/** The credential's Redis fields as a user fills them for a cluster (Host and Port left as they are). */
const clusterFields = (prefix = 'svc-messaging') => ({
	sharedRateLimit: true,
	redisHost: 'localhost',
	redisPort: 6379,
	redisPassword: REDIS_PASSWORD,
	redisPrefix: prefix,
	redisClusterNodes: cluster.nodesText,
});
const clusterConfig = (prefix?: string): SharedLimitConfig => sharedLimitOf(clusterFields(prefix))!;

const sends = () => sendsAt(emu);

it('the cluster is real: a multi-key step over keys of different slots is refused (CROSSSLOT)', async () => {
	const client = new Redis.Cluster(cluster.nodes, { redisOptions: { password: REDIS_PASSWORD } });
	await new Promise((ready) => client.once('ready', ready));
	try {
		await expect(client.mget('svc-probe:a', 'svc-probe:b', 'svc-probe:c')).rejects.toThrow(/CROSSSLOT/);
		const slots = await client.cluster('SLOTS');
		expect(new Set(slots.map((range) => range[2][1])).size).toBe(3);
	} finally {
		client.disconnect();
	}
});

describe('the shared limit on the cluster', () => {
	it('the node and another process on one Free key: one pace for both, no 429, every message once', async () => {
		const FREE = { requestsPerSecond: 5, recipientsPerCall: 100 };
		const credentials = apiKeyCredentials(emu.url, { plan: 'free', webhookSecret: 'whsec_never_in_redis', extra: { ...STRICT, ...clusterFields() } });
		const [[out], otherStatuses] = await Promise.all([
			executeNode({ parameters: sendParameters(), credentials }, phones(10_000_000, 20)),
			sendFromOther(emu, otherProcess(), clusterConfig(), 20_000_000, 20, SEED_KEYS.free, FREE),
		]);
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(20);
		expect(otherStatuses).toEqual(Array(20).fill(202));
		expect(sends().filter((r) => r.status === 429)).toHaveLength(0);
		expect(sends()).toHaveLength(40);
		expect(new Set(emu.control.messages().map((m) => m.phoneNumber)).size).toBe(40);
	}, 60_000);

	it.each([2, 4])('Starter, %i processes started together on a fresh key: the strict window holds (no 1,000 ms with more than 20), no 429', async (processes) => {
		const STARTER = { requestsPerSecond: 20, recipientsPerCall: 1000 };
		const each = Math.ceil(60 / processes);
		const config = clusterConfig(`svc-messaging-cluster-${processes}`);
		const copies = Array.from({ length: processes }, () => otherProcess());
		const statuses = await Promise.all(copies.map(async (copy, p) => await sendFromOther(emu, copy, config, 70_000_000 + p * 1_000, each, SEED_KEYS.starter, STARTER)));
		expect(statuses.flat()).toEqual(Array(processes * each).fill(202));
		expect(sends().filter((r) => r.status === 429)).toHaveLength(0);
		expect(mostInAnySecond(sends().map((r) => Date.parse(r.time)))).toBeLessThanOrEqual(STARTER.requestsPerSecond);
		expect(new Set(emu.control.messages().map((m) => m.phoneNumber)).size).toBe(processes * each);
	}, 60_000);

	it("a 429's pause set by one process holds the other's requests on the cluster", async () => {
		const FREE = { requestsPerSecond: 5, recipientsPerCall: 100 };
		const a = await mainLimiter.limiterFor('http://pause.test', 'key-pause', FREE, clusterConfig());
		const b = await otherProcess().limiterFor('http://pause.test', 'key-pause', FREE, clusterConfig());
		await a.schedule(async () => undefined);
		a.penalize(1_500);
		const penalizedAt = Date.now();
		await new Promise((r) => setTimeout(r, 100));
		const startedAt = await b.schedule(async () => Date.now());
		expect(startedAt - penalizedAt).toBeGreaterThanOrEqual(1_200);
	}, 30_000);
});

it("each key's limiter keys sit in one hash slot, and the cluster holds no API key, password or secret", async () => {
	await executeNode(
		{ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url, { plan: 'free', webhookSecret: 'whsec_never_in_redis', extra: { ...STRICT, ...clusterFields() } }) },
		phones(60_000_000, 3),
	);
	const client = new Redis.Cluster(cluster.nodes, { redisOptions: { password: REDIS_PASSWORD } });
	await new Promise((ready) => client.once('ready', ready));
	try {
		const keys = (await Promise.all(client.nodes('master').map(async (node) => await node.keys('*')))).flat();
		const ours = keys.filter((key) => /svc-messaging:\{/.test(key));
		expect(ours.length).toBeGreaterThan(8);
		const slotsByTag = new Map<string, Set<number>>();
		for (const key of ours) {
			const tag = /\{([^}]+)\}/.exec(key)![1];
			const slot = Number(await client.cluster('KEYSLOT', key));
			slotsByTag.set(tag, (slotsByTag.get(tag) ?? new Set()).add(slot));
		}
		for (const slots of slotsByTag.values()) expect(slots.size).toBe(1);
		const text = keys.join('\n') + (await Promise.all(keys.filter((k) => k.includes('settings')).map(async (k) => JSON.stringify(await client.hgetall(k))))).join('\n');
		for (const secret of [SEED_KEYS.free, SEED_KEYS.starter, 'whsec_never_in_redis', REDIS_PASSWORD]) expect(text).not.toContain(secret);
	} finally {
		client.disconnect();
	}
}, 30_000);

describe("the slot leases on the cluster (a child process holds a key's 3 slots)", () => {
	const SLOTS = 3;
	const limits = { requestsPerSecond: SLOTS, recipientsPerCall: 1 };
	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
	async function holder(prefix: string) {
		const args = [join(__dirname, 'fixtures', 'slotHolder.ts'), '6379', prefix, String(SLOTS), cluster.nodesText, REDIS_PASSWORD];
		const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', ...args], { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
		await new Promise<void>((resolve, reject) => {
			child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
			child.once('exit', (code) => reject(new Error(`slot holder exited (${code})`)));
		});
		return child;
	}

	it('a living process keeps its slots past two leases (renewed on the cluster): nobody else takes them', async () => {
		const child = await holder('svc-lease-alive');
		try {
			const limiter = await mainLimiter.limiterFor('http://lease.test', 'key-lease', limits, clusterConfig('svc-lease-alive'));
			let ran = false;
			void limiter.schedule(async () => void (ran = true)).catch(() => undefined);
			await sleep(2 * LEASE_MS);
			expect(ran).toBe(false);
		} finally {
			child.kill('SIGKILL');
		}
	}, 60_000);

	it('the slots of a process SIGKILLed while holding them come back within a lease and a heartbeat', async () => {
		const child = await holder('svc-lease-dead');
		const limiter = await mainLimiter.limiterFor('http://lease.test', 'key-lease', limits, clusterConfig('svc-lease-dead'));
		child.kill('SIGKILL');
		const killedAt = Date.now();
		const startedAfter = await Promise.all(Array.from({ length: SLOTS }, async () => await limiter.schedule(async () => Date.now() - killedAt)));
		expect(Math.max(...startedAfter)).toBeLessThan(LEASE_MS + 5_000 + 2_000);
	}, 60_000);
});
