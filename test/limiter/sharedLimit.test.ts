/**
 * "Use Redis" (sharedRateLimit) — the key's slots and pace in a real
 * redis-server (Debian package, started on a free port here), against the emulator in
 * sliding-window mode (at most N requests in any 1,000 ms). A second n8n process is stood in
 * for by a second, isolated copy of the limiter module (its own connections and module state, as
 * in another worker), sending real HTTP to the emulator on the same key. Every claim is counted at
 * the emulator: requests, 429s, messages.
 */
import Redis from 'ioredis';

import { SEED_KEYS } from '../emulator';
import { apiKeyCredentials, STRICT, type SharedLimitRedis } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { mostInAnySecond, phones, sendFromOther, sendsAt, useLimiterProcesses } from '../helpers/limiterProcesses';
import { executeNode } from '../helpers/n8n';
import { downRedisPort, startRedis, type RedisServer } from '../helpers/services';
import { sendParameters } from '../sms/fixtures';
import * as mainLimiter from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

const FREE = { requestsPerSecond: 5, recipientsPerCall: 100 };
const REDIS_PASSWORD = 'redis-secret-pw-0001';
// A new emulator per test: each test counts the requests and 429s of its own run. Delivery lifecycles
// far in the future: the emulator only answers requests here.
const emu = useEmulator({ per: 'test', timeScale: 1000, rateLimit: 'sliding-window' });
let redis: RedisServer;
const { otherProcess } = useLimiterProcesses();


function shared(override: Partial<SharedLimitRedis> = {}): SharedLimitRedis {
	return { port: redis.port, password: REDIS_PASSWORD, prefix: 'svc-messaging', ...override };
}

function sharedConfig() {
	return { host: '127.0.0.1', port: redis.port, user: '', password: REDIS_PASSWORD, database: 0, tls: false, keyPrefix: 'svc-messaging' };
}

/** The Free key with a webhook secret (which must never reach Redis); with `redis`, the limit is shared through it. */
function freeCredentials(redis?: SharedLimitRedis) {
	return apiKeyCredentials(emu.url, { plan: 'free', webhookSecret: 'whsec_never_in_redis', redis, extra: redis ? { ...STRICT, redisDatabase: 0 } : STRICT });
}

const sends = () => sendsAt(emu);

beforeAll(async () => {
	redis = await startRedis({ password: REDIS_PASSWORD });
}, 120_000);
afterAll(async () => {
	await closeRedisClients();
	await redis?.stop();
});

describe('two processes on one Free key', () => {
	it('with the shared limit: one pace for both, no 429, every message once', async () => {
		const [[out], otherStatuses] = await Promise.all([
			executeNode({ parameters: sendParameters(), credentials: freeCredentials(shared()) }, phones(10_000_000, 25)),
			sendFromOther(emu, otherProcess(), sharedConfig(), 20_000_000, 25, SEED_KEYS.free, FREE),
		]);
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(25);
		expect(otherStatuses).toEqual(Array(25).fill(202));
		expect(sends().filter((r) => r.status === 429)).toHaveLength(0);
		expect(sends()).toHaveLength(50);
		const numbers = emu.control.messages().map((m) => m.phoneNumber);
		expect(new Set(numbers).size).toBe(50);
	}, 60_000);

	it('control: the same load without it draws 429s from the service (each process paces alone)', async () => {
		const [[out]] = await Promise.all([
			executeNode({ parameters: sendParameters(), credentials: freeCredentials() }, phones(10_000_000, 20)),
			sendFromOther(emu, otherProcess(), undefined, 20_000_000, 20, SEED_KEYS.free, FREE),
		]);
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(20);
		expect(sends().filter((r) => r.status === 429).length).toBeGreaterThan(0);
		expect(new Set(emu.control.messages().map((m) => m.phoneNumber)).size).toBe(40);
	}, 60_000);
});

describe('1, 2 and 4 processes on a fresh key, against a sliding window', () => {
	const STARTER = { requestsPerSecond: 20, recipientsPerCall: 1000 };
	it.each([
		{ plan: 'free', key: SEED_KEYS.free, limits: FREE, processes: 1, each: 12 },
		{ plan: 'free', key: SEED_KEYS.free, limits: FREE, processes: 2, each: 8 },
		{ plan: 'free', key: SEED_KEYS.free, limits: FREE, processes: 4, each: 5 },
		{ plan: 'starter', key: SEED_KEYS.starter, limits: STARTER, processes: 1, each: 45 },
		{ plan: 'starter', key: SEED_KEYS.starter, limits: STARTER, processes: 2, each: 25 },
		{ plan: 'starter', key: SEED_KEYS.starter, limits: STARTER, processes: 4, each: 12 },
	])('$plan, $processes process(es) × $each sends started together: no 429, not even in the first second; every message once', async ({ key, limits, processes, each }) => {
		// A prefix of its own: the key's slots start empty in Redis, as on a fresh key.
		const config = { ...sharedConfig(), keyPrefix: `svc-messaging-fresh-${processes}-${limits.requestsPerSecond}` };
		const copies = Array.from({ length: processes }, () => otherProcess());
		const statuses = await Promise.all(copies.map(async (copy, p) => await sendFromOther(emu, copy, config, 70_000_000 + p * 1_000, each, key, limits)));
		expect(statuses.flat()).toEqual(Array(processes * each).fill(202));
		expect(sends().filter((r) => r.status === 429)).toHaveLength(0);
		expect(sends()).toHaveLength(processes * each);
		// The emulator's own count: no 1,000 ms of its log holds more than the plan's N requests.
		expect(mostInAnySecond(sends().map((r) => Date.parse(r.time)))).toBeLessThanOrEqual(limits.requestsPerSecond);
		expect(new Set(emu.control.messages().map((m) => m.phoneNumber)).size).toBe(processes * each);
	}, 60_000);
});

describe('a 429 pauses every process on the key', () => {
	it("one process's pause holds the other's requests until Retry-After has passed", async () => {
		const a = await mainLimiter.limiterFor('http://pause.test', 'key-pause', FREE, sharedConfig());
		const b = await otherProcess().limiterFor('http://pause.test', 'key-pause', FREE, sharedConfig());
		await a.schedule(async () => undefined);
		a.penalize(1_500);
		const penalizedAt = Date.now();
		await new Promise((r) => setTimeout(r, 100));
		const startedAt = await b.schedule(async () => Date.now());
		// A lower bound only: a slow machine makes it later, never earlier.
		expect(startedAt - penalizedAt).toBeGreaterThanOrEqual(1_200);
	}, 30_000);

	it('a pause left by a process that stopped before lifting it ends when its time is up', async () => {
		const first = otherProcess();
		const a = await first.limiterFor('http://stuck.test', 'key-stuck', FREE, sharedConfig());
		await a.schedule(async () => undefined);
		a.penalize(800);
		await new Promise((r) => setTimeout(r, 200));
		// The process that paused the key goes away before its own lift.
		await first.closeSharedLimiters();
		const b = await mainLimiter.limiterFor('http://stuck.test', 'key-stuck', FREE, sharedConfig());
		const ran = await b.schedule(async () => 'ran');
		expect(ran).toBe('ran');
	}, 30_000);
});

describe('Redis trouble is never a duplicate or a silent overrun', () => {
	it('Redis unreachable at the start: the node fails before sending anything, naming the host and the setting', async () => {
		const { port, close } = await downRedisPort();
		const run = executeNode({ parameters: sendParameters(), credentials: freeCredentials(shared({ port })) }, phones(30_000_000, 3));
		await expect(run).rejects.toThrow(new RegExp(`Could not connect to Redis at 127\\.0\\.0\\.1:${port}`));
		await run.catch((error: { description?: string; message: string }) => {
			expect(error.description).toContain('"Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)"');
			expect(`${error.message} ${error.description}`).not.toContain(REDIS_PASSWORD);
		});
		await close();
		expect(emu.control.requests()).toHaveLength(0);
	}, 30_000);

	it('a wrong Redis password: a clear error, never the password', async () => {
		const run = executeNode({ parameters: sendParameters(), credentials: freeCredentials(shared({ password: 'wrong-pw-0002' })) }, phones(30_000_000, 1));
		await expect(run).rejects.toThrow(/Could not connect to Redis at 127\.0\.0\.1:\d+/);
		await run.catch((error: { message: string; description?: string }) => {
			expect(error.description).toMatch(/WRONGPASS|NOAUTH|invalid/i);
			expect(`${error.message} ${error.description}`).not.toContain('wrong-pw-0002');
		});
		expect(emu.control.requests()).toHaveLength(0);
	}, 30_000);

	it('Redis lost in the middle of a run: accepted items stay accepted, the rest fail unsent; nothing is sent twice', async () => {
		const items = phones(40_000_000, 40);
		const run = executeNode(
			{ parameters: sendParameters(), credentials: freeCredentials(shared()), settings: { onError: 'continueRegularOutput' } },
			items,
		);
		// 40 sends at 5/s take 8 s: Redis goes away (as in a crash) after about 2 s.
		await new Promise((r) => setTimeout(r, 2_000));
		await redis.stop(true);
		const [out] = await run;
		redis = await startRedis({ port: redis.port, password: REDIS_PASSWORD });

		expect(out).toHaveLength(40);
		const accepted = out.filter((item) => item.json.accepted === true);
		const failed = out.filter((item) => item.json.accepted !== true);
		expect(accepted.length).toBeGreaterThan(0);
		expect(failed.length).toBeGreaterThan(0);
		for (const item of failed) expect(String(item.json.errorMessage)).toMatch(/Redis at 127\.0\.0\.1:\d+/);
		// Exactly the accepted items reached the service, each once.
		const numbers = emu.control.messages().map((m) => m.phoneNumber);
		expect(numbers.sort()).toEqual(accepted.map((item) => String(item.json.phoneNumber)).sort());
		expect(sends().filter((r) => r.status === 429)).toHaveLength(0);
		out.forEach((item, i) => expect(item.pairedItem).toEqual({ item: i }));

		// Redis is back: the next run connects again and sends.
		const [again] = await executeNode({ parameters: sendParameters(), credentials: freeCredentials(shared()) }, phones(50_000_000, 3));
		expect(again.filter((item) => item.json.accepted === true)).toHaveLength(3);
	}, 60_000);
});

it('Redis holds no API key, password or webhook secret, and only prefixed keys', async () => {
	await executeNode({ parameters: sendParameters(), credentials: freeCredentials(shared()) }, phones(60_000_000, 3));
	const client = new Redis({ host: '127.0.0.1', port: redis.port, password: REDIS_PASSWORD, lazyConnect: true });
	await client.connect();
	try {
		const keys = await client.keys('*');
		expect(keys.length).toBeGreaterThan(0);
		const dump: string[] = [...keys];
		for (const key of keys) {
			const type = await client.type(key);
			if (type === 'hash') dump.push(JSON.stringify(await client.hgetall(key)));
			else if (type === 'string') dump.push(String(await client.get(key)));
			else if (type === 'zset') dump.push(JSON.stringify(await client.zrange(key, 0, -1, 'WITHSCORES')));
			else if (type === 'list') dump.push(JSON.stringify(await client.lrange(key, 0, -1)));
			else if (type === 'set') dump.push(JSON.stringify(await client.smembers(key)));
		}
		const text = dump.join('\n');
		for (const secret of [SEED_KEYS.free, 'whsec_never_in_redis', REDIS_PASSWORD]) expect(text).not.toContain(secret);
		for (const key of keys) expect(key).toMatch(/^(b_)?svc-messaging(-fresh-\d+-\d+)?:/);
	} finally {
		client.disconnect();
	}
}, 30_000);
