/**
 * A Redis restarted between two sends (a real redis-server, restarted empty on its port): this
 * process's clients reconnect, and the shared limit's Bottleneck sets its limiter up again (it did
 * not recognise Redis 7's "ERR SETTINGS_KEY_NOT_FOUND"), so the next send goes instead of failing
 * whole with "Lost the connection to Redis … the shared rate limit".
 * Keyed sends (the keys, the ledger's shared entries, the do-not-send list, the shared limit all in
 * that Redis), counted at the emulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { sendBulkParameters, sendParameters } from '../sms/fixtures';
import { doNotSendStore } from '../../nodes/SvcMessaging/sending/policies/doNotSendStore';
import { sharedLimitOf } from '../../nodes/SvcMessaging/transport/redis';

const emu = useEmulator({ per: 'test' });
const redis = useRedis();
let run = 0;
beforeEach(() => run++);

const shared = () => apiKeyCredentials(emu.url, { redis: { port: redis.port, prefix: `restart-${run}` } });
const items = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + run * 100 + i).padStart(8, '0')}`, name: 'Amina', key: `event-${run}-${base + i}` }));
const keyed = { idempotencyKey: '={{ $json.key }}' };
const sent = () => emu.control.messages().map((m) => m.phoneNumber);

async function send(parameters: IDataObject, list: IDataObject[], executionId: string) {
	const out = (await executeNode({ parameters, credentials: shared(), executionId, settings: { onError: "continueRegularOutput" } }, list))[0].map((item) => item.json);
	if (process.env.DEBUG_G8) console.log(JSON.stringify(out.map((j) => [j.errorMessage, j.errorDescription, j.errorCode])));
	return out;
}

it.each([
	['at once', 0],
	['1.5 s after', 1_500],
])('Redis restarted between two sends, the next send %s: every message sent, once', async (_, afterMs) => {
	const first = await send(sendParameters({ options: keyed }), items(41_000_000, 3), `restart-${run}-a`);
	expect(first.filter((json) => json.accepted === true)).toHaveLength(3);

	await redis.restart();
	await new Promise((resolve) => setTimeout(resolve, afterMs));
	const next = await send(sendParameters({ options: keyed }), items(42_000_000, 3), `restart-${run}-b`);
	expect(next.map((json) => json.accepted)).toEqual([true, true, true]);
	const bulk = await send(sendBulkParameters({ options: keyed }), items(43_000_000, 4), `restart-${run}-c`);
	expect(bulk.filter((json) => json.accepted === true)).toHaveLength(4);
	expect(sent()).toHaveLength(10);
	expect(new Set(sent()).size).toBe(10);
}, 60_000);

it('a call tried once (the do-not-send list\'s look-up) right after the restart is answered by the reconnected client', async () => {
	const config = sharedLimitOf(shared().svcMessagingApi!)!;
	const list = await doNotSendStore(config);
	await list.add(['+254712349999']);
	await redis.restart();
	expect(await list.listed(['+254712349999', '+254712340000'])).toEqual([false, false]);
	await list.add(['+254712349999']);
	expect(await list.listed(['+254712349999'])).toEqual([true]);
}, 30_000);
