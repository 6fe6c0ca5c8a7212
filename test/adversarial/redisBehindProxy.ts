/**
 * The bed of the Redis fault tests: a real redis-server behind our TCP proxy (tcpProxy.ts), so a
 * test can cut it, silence it or slow it, and the emulator; the API-key credential shares its
 * limit through that proxy. Registers the file's beforeAll/afterAll.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { startEmulator, SEED_KEYS, type RunningEmulator } from '../emulator';
import { shutdownN8nCore } from '../helpers/n8n';
import { startRedis, type RedisServer } from '../helpers/services';
import { startTcpProxy, type TcpProxy } from './tcpProxy';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

export interface RedisBehindProxy {
	readonly emu: RunningEmulator;
	readonly proxy: TcpProxy;
	/** a Free key sharing its limit through the proxy, under its own Redis prefix */
	credentials(): { svcMessagingApi: ICredentialDataDecryptedObject };
}

export function useRedisBehindProxy(name: string): RedisBehindProxy {
	const password = `redis-${name}-pw-0001`;
	let emu: RunningEmulator;
	let redis: RedisServer;
	let proxy: TcpProxy;

	beforeAll(async () => {
		redis = await startRedis({ password });
		proxy = await startTcpProxy(redis.port);
		emu = await startEmulator({ port: 0, timeScale: 1000 });
	}, 120_000);

	afterAll(async () => {
		await closeSharedLimiters();
		await closeRedisClients();
		await proxy.close();
		await emu.close();
		await redis.stop();
		await shutdownN8nCore();
	});

	return {
		get emu() {
			return emu;
		},
		get proxy() {
			return proxy;
		},
		credentials: () => ({
			svcMessagingApi: {
				baseUrl: emu.url,
				apiKey: SEED_KEYS.free,
				plan: 'free',
				sharedRateLimit: true,
				redisHost: '127.0.0.1',
				redisPort: proxy.port,
				redisPassword: password,
				redisDatabase: 0,
				redisPrefix: `svc-messaging-${name}`,
			},
		}),
	};
}
