/**
 * Issue 22, item 5: a Redis that keeps its connections open but stops answering (a network
 * partition, a stopped process behind a live proxy) must not hang the node. A TCP proxy of our own
 * (tcpProxy.ts) stands between the nodes and a real redis-server; "silent" drops everything in both directions.
 * Every Redis command has a time limit: the send then fails unsent with the clear "Lost the
 * connection to Redis" error, and the emulator counts what was sent.
 */
import { startEmulator, SEED_KEYS, type RunningEmulator } from '../emulator';
import { executeNode, shutdownN8nCore } from '../helpers/n8n';
import { startRedis, type RedisServer } from '../helpers/services';
import { sendParameters } from '../sms/fixtures';
import { recordCase } from './tally';
import { startTcpProxy, type TcpProxy } from './tcpProxy';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

const REDIS_PASSWORD = 'redis-silent-pw-0001';
let emu: RunningEmulator;
let redis: RedisServer;
let proxy: TcpProxy;

beforeAll(async () => {
	redis = await startRedis({ password: REDIS_PASSWORD });
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

const credentials = () => ({
	svcMessagingApi: {
		baseUrl: emu.url,
		apiKey: SEED_KEYS.free,
		plan: 'free',
		sharedRateLimit: true,
		redisHost: '127.0.0.1',
		redisPort: proxy.port,
		redisPassword: REDIS_PASSWORD,
		redisDatabase: 0,
		redisPrefix: 'svc-messaging-silent',
	},
});

it('a Redis that stops answering fails the send unsent, with the Redis error, instead of hanging', async () => {
	const [first] = await executeNode({ parameters: sendParameters(), credentials: credentials() }, [{ phone: '+254712300001' }]);
	expect(first[0].json).toMatchObject({ accepted: true });
	expect(emu.control.messages()).toHaveLength(1);

	proxy.setMode('silent');
	let error: Error | undefined;
	try {
		await executeNode({ parameters: sendParameters(), credentials: credentials() }, [{ phone: '+254712300002' }]);
	} catch (caught) {
		error = caught as Error;
	}
	expect(error?.message).toMatch(/Lost the connection to Redis at 127\.0\.0\.1:\d+/);
	expect(emu.control.messages()).toHaveLength(1);
	recordCase('Redis goes silent mid-run: the send fails unsent', { sentTwice: 0, lost: 0, forgedAccepted: 0 });
}, 60_000);
