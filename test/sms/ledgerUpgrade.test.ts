/**
 * The send ledger after an upgrade: entries that earlier versions wrote to Redis (`{ run, entry }`,
 * no time, no "under way" state) are still recognised by an execution Retry, under the same keys.
 * Here such an entry is put in place of the one this version wrote, as an earlier version wrote it.
 */
import Redis from 'ioredis';

import { SEED_KEYS, type RunningEmulator } from '../emulator';
import { executeNode, shutdownN8nCore } from '../helpers/n8n';
import { startRedis, type RedisServer } from '../helpers/services';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger';
import { emulator, sendParameters } from './fixtures';

let emu: RunningEmulator;
let redis: RedisServer;

beforeAll(async () => {
	redis = await startRedis();
	emu = await emulator();
}, 120_000);

afterAll(async () => {
	await closeSharedLimiters();
	await closeRedisClients();
	await emu.close();
	await redis.stop();
	await shutdownN8nCore();
});

it('a Retry recognises what an earlier version recorded in Redis', async () => {
	const credentials = {
		svcMessagingApi: { baseUrl: emu.url, apiKey: SEED_KEYS.free, plan: 'free', sharedRateLimit: true, redisHost: '127.0.0.1', redisPort: redis.port, redisPrefix: 'svc-messaging-upgrade' },
	};
	const items = [{ phone: '+254763000001' }, { phone: '+254763000002' }];
	emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
	emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
	await expect(executeNode({ parameters: sendParameters(), credentials, executionId: 'upgrade-a' }, items)).rejects.toThrow(/1 were accepted/);

	// The accepted message's entry, rewritten in the earlier versions' format.
	const client = new Redis({ host: '127.0.0.1', port: redis.port });
	let rewritten = 0;
	try {
		for (const key of await client.keys('svc-messaging-upgrade:sent:*')) {
			const stored = JSON.parse(String(await client.get(key))) as { run: string; entry: { outcome: string; json?: Record<string, unknown> } };
			if (stored.entry.json?.phoneNumber !== items[0].phone) continue;
			const earlier = { run: stored.run, entry: { outcome: 'accepted', json: { ...stored.entry.json, messageId: 'msg_from_an_earlier_version' } } };
			await client.set(key, JSON.stringify(earlier), 'PX', 3_600_000);
			rewritten++;
		}
	} finally {
		client.disconnect();
	}
	expect(rewritten).toBe(1);

	clearLocalLedger();
	const [out] = await executeNode(
		{ parameters: sendParameters(), credentials, executionId: 'upgrade-b', mode: 'retry', settings: { onError: 'continueRegularOutput' } },
		items,
	);
	expect(out[0].json).toMatchObject({ accepted: true, alreadySent: true, messageId: 'msg_from_an_earlier_version', sentIn: { executionId: 'upgrade-a' } });
	expect((out[0].json.sentIn as { at?: string }).at).toBeUndefined();
	expect(String(out[1].json.errorMessage)).toMatch(/earlier try may already have sent this message/);
	expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([items[0].phone]);
}, 60_000);
