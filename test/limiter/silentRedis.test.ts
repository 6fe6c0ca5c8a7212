/**
 * Issue 22, item 5: a Redis that keeps its connections open but stops answering (a network
 * partition, a stopped process behind a live proxy) must not hang the node. A TCP proxy of our own
 * stands between the nodes and a real redis-server; "silent" drops everything in both directions.
 * Every Redis command has a time limit: the send then fails unsent with the clear "Lost the
 * connection to Redis" error, and the emulator counts what was sent.
 */
import { createConnection, createServer, type Server, type Socket } from 'net';

import { startEmulator, SEED_KEYS, type RunningEmulator } from '../emulator';
import { executeNode, shutdownN8nCore } from '../helpers/n8n';
import { startRedis, type RedisServer } from '../helpers/services';
import { sendParameters } from '../sms/fixtures';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

const REDIS_PASSWORD = 'redis-silent-pw-0001';
let emu: RunningEmulator;
let redis: RedisServer;
let proxy: Server;
let proxyPort = 0;
let silent = false;
const sockets = new Set<Socket>();

beforeAll(async () => {
	redis = await startRedis({ password: REDIS_PASSWORD });
	proxy = createServer((client) => {
		const upstream = createConnection(redis.port, '127.0.0.1');
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('error', () => undefined);
			socket.on('close', () => sockets.delete(socket));
		}
		client.on('data', (chunk) => void (silent || upstream.write(chunk)));
		upstream.on('data', (chunk) => void (silent || client.write(chunk)));
		client.on('close', () => upstream.destroy());
		upstream.on('close', () => client.destroy());
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	proxyPort = (proxy.address() as { port: number }).port;
	emu = await startEmulator({ port: 0, timeScale: 1000 });
}, 120_000);

afterAll(async () => {
	silent = false;
	await closeSharedLimiters();
	await closeRedisClients();
	for (const socket of sockets) socket.destroy();
	await new Promise<void>((resolve) => proxy.close(() => resolve()));
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
		redisPort: proxyPort,
		redisPassword: REDIS_PASSWORD,
		redisDatabase: 0,
		redisPrefix: 'svc-messaging-silent',
	},
});

it('a Redis that stops answering fails the send unsent, with the Redis error, instead of hanging', async () => {
	const [first] = await executeNode({ parameters: sendParameters(), credentials: credentials() }, [{ phone: '+254712300001' }]);
	expect(first[0].json).toMatchObject({ accepted: true });
	expect(emu.control.messages()).toHaveLength(1);

	silent = true;
	let error: Error | undefined;
	try {
		await executeNode({ parameters: sendParameters(), credentials: credentials() }, [{ phone: '+254712300002' }]);
	} catch (caught) {
		error = caught as Error;
	}
	expect(error?.message).toMatch(/Lost the connection to Redis at 127\.0\.0\.1:\d+/);
	expect(emu.control.messages()).toHaveLength(1);
}, 60_000);
