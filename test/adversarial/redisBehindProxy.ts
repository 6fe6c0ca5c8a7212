/**
 * The bed of the Redis fault cases: a real redis-server (test/helpers/redisFixture.ts) behind our TCP
 * proxy (tcpProxy.ts), so that a case can cut it, silence it or slow it, and the emulator
 * (test/helpers/emulatorFixture.ts, reset before each case). The credential it builds shares the
 * key's limit and send ledger through the proxy, under the bed's own Redis prefix. Registers the
 * block's hooks.
 */
import type { RunningEmulator } from '../emulator';
import { apiKeyCredentials, type ApiKeyOptions, type Plan, type TestCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { live, runningOnly } from '../helpers/live';
import { useRedis } from '../helpers/redisFixture';
import type { RedisServer } from '../helpers/services';
import { startTcpProxy, type TcpProxy } from './tcpProxy';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

export interface RedisBedOptions {
	/** the plan of the seed key the credential uses (default 'free') */
	plan?: Plan;
	/** the emulator's; default 1000: no message becomes final while a case runs */
	timeScale?: number;
}

export interface RedisBehindProxy {
	readonly emu: RunningEmulator;
	readonly proxy: TcpProxy;
	/** the server itself, past the proxy: an admin connection no proxy mode cuts */
	readonly redis: RedisServer;
	readonly password: string;
	readonly prefix: string;
	/** the plan's seed key, sharing its limit through the proxy; `options` adds to it (a Redis user, another key) */
	credentials(options?: ApiKeyOptions): TestCredentials;
}

export function useRedisBehindProxy(name: string, options: RedisBedOptions = {}): RedisBehindProxy {
	const password = `redis-${name}-pw-0001`;
	const prefix = `svc-messaging-${name}`;
	const redis = useRedis({ password });
	const emu = useEmulator({ timeScale: options.timeScale ?? 1000 });
	let running: TcpProxy | undefined;
	beforeAll(async () => {
		running = await startTcpProxy(redis.port);
	});
	afterAll(async () => {
		await running?.close();
		running = undefined;
	});
	const proxy = live(runningOnly('useRedisBehindProxy()', () => running));
	return {
		emu,
		redis,
		proxy,
		password,
		prefix,
		credentials: (extra: ApiKeyOptions = {}) =>
			apiKeyCredentials(emu.url, { plan: options.plan ?? 'free', ...extra, redis: { port: proxy.port, password, prefix, ...extra.redis } }),
	};
}

/** What another worker (or a restarted one) starts with: no send ledger in memory, no limiter, no Redis connection. */
export async function freshWorker(): Promise<void> {
	await closeSharedLimiters();
	await closeRedisClients();
	clearLocalLedger();
}
