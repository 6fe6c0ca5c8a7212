/**
 * The send ledger after an upgrade: entries that earlier versions wrote to Redis (`{ run, entry }`,
 * no time, no "under way" state) are still recognised by an execution Retry, under the same keys.
 * Here such an entry is put in place of the one this version wrote, as an earlier version wrote it.
 */
import Redis from 'ioredis';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendParameters } from './fixtures';

const redis = useRedis();
const emu = useEmulator();

it('a Retry recognises what an earlier version recorded in Redis', async () => {
	const credentials = apiKeyCredentials(emu.url, { plan: 'free', redis: { port: redis.port, prefix: 'svc-messaging-upgrade' } });
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
