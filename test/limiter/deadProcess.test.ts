/**
 * A process that dies holding shared slots: a real child process takes every slot of a key on a
 * real redis-server, with requests that never answer, and is SIGKILLed. Its slots are leases
 * (transport/slotLease.ts) that nobody renews any more: this process gets them within seconds (they
 * took 40 s before). And a living process's slot is renewed: held 12 s (two leases),
 * nobody else takes it.
 */
import { spawn } from 'child_process';
import { join } from 'path';

import { startRedis, type RedisServer } from '../helpers/services';
import { closeSharedLimiters, limiterFor } from '../../nodes/SvcMessaging/transport/limiter';
import { LEASE_MS } from '../../nodes/SvcMessaging/transport/slotLease';

let redis: RedisServer;
const SLOTS = 3;
const limits = { requestsPerSecond: SLOTS, recipientsPerCall: 1 };
const config = (prefix: string) => ({ host: '127.0.0.1', port: redis.port, user: '', password: '', database: 0, tls: false, keyPrefix: prefix });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
	redis = await startRedis();
}, 120_000);
afterEach(closeSharedLimiters);
afterAll(async () => await redis?.stop());

/** A child process holding every slot of the key; resolves once it holds them. */
async function holder(prefix: string) {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'fixtures', 'slotHolder.ts'), String(redis.port), prefix, String(SLOTS)], {
		cwd: join(__dirname, '..', '..'),
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	await new Promise<void>((resolve, reject) => {
		child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
		child.once('exit', (code) => reject(new Error(`slot holder exited (${code})`)));
	});
	return child;
}

it(`the slots of a process SIGKILLed while holding them come back within a lease (${LEASE_MS / 1000} s) and Bottleneck's heartbeat (5 s), not after the 40 s they took before`, async () => {
	const child = await holder('svc-lease-dead');
	const limiter = await limiterFor('http://lease.test', 'key-lease', limits, config('svc-lease-dead'));
	child.kill('SIGKILL');
	const killedAt = Date.now();
	const startedAfter = await Promise.all(Array.from({ length: SLOTS }, async () => await limiter.schedule(async () => Date.now() - killedAt)));
	process.stderr.write(`dead process's slots back after ${startedAfter.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s\n`);
	// Bottleneck frees expired slots when a process on the key next calls Redis (its heartbeat: every 5 s).
	expect(Math.max(...startedAfter)).toBeLessThan(LEASE_MS + 5_000 + 2_000);
	expect(Math.max(...startedAfter)).toBeLessThan(20_000);
}, 60_000);

it('a living process keeps its slots past several leases while its requests run: nobody else takes them', async () => {
	const child = await holder('svc-lease-alive');
	try {
		const limiter = await limiterFor('http://lease.test', 'key-lease', limits, config('svc-lease-alive'));
		let ran = false;
		void limiter.schedule(async () => void (ran = true)).catch(() => undefined);
		await sleep(2 * LEASE_MS);
		expect(ran).toBe(false);
	} finally {
		child.kill('SIGKILL');
	}
}, 60_000);
