/**
 * Options → Idempotency Key: one message per business event, over real HTTP against the emulator,
 * every message counted there. Without the shared Redis the keys live in this process (every
 * workflow) and in n8n's processed-data table for the node (test/helpers/processedData.ts plays
 * it; a restart is clearLocalKeys() + clearLocalLedger()); with it, in Redis (SET NX: an atomic
 * claim across processes).
 */
import type { IDataObject } from 'n8n-workflow';
import Redis from 'ioredis';

import { useEmulator } from '../helpers/emulatorFixture';
import { processedData } from '../helpers/processedData';
import { executeNode, executeNodeWithHints, type NodeSetup } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { apiKeyCredentials, SEED_KEYS, sendBulkParameters, sendParameters } from '../sms/fixtures';
import { clearLocalKeys } from '../../nodes/SvcMessaging/sending/keys/keyClaims';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { OPTED_IN } from '../chat/helpers';
import { createParameters, credentials as campaignCredentials } from '../campaign/helpers';

const emu = useEmulator();
let n = 0;
let key = '';
beforeEach(() => {
	n++;
	key = `order-${Date.now().toString(36)}-${n}-shipped`;
});

const KE = '+254712340001';
const smsTo = (phone: string) => emu.control.messages().filter((m) => m.phoneNumber === phone);
const keyed = (extra: IDataObject = {}, options: IDataObject = {}) => sendParameters({ options: { idempotencyKey: '={{ $json.key }}', ...options }, ...extra });

async function send(setup: Omit<NodeSetup, 'credentials'> & { credentials?: NodeSetup['credentials'] }, items: IDataObject[]) {
	const output = await executeNode({ credentials: apiKeyCredentials(emu.url), ...setup }, items);
	return output[0].map((item) => item.json);
}

async function attempt(setup: NodeSetup, items: IDataObject[]) {
	try {
		return { out: (await executeNode(setup, items))[0].map((item) => item.json) };
	} catch (error) {
		return { error: error as Error & { description?: string } };
	}
}

describe('Idempotency Key without the shared Redis (this process, n8n’s database)', () => {
	it('a re-run whose items were all sent says so: a hint ("nothing was sent now"), and alreadySent is the first field of each output', async () => {
		const items = [1, 2, 3].map((i) => ({ phone: `+25471234200${i}`, name: 'Amina', key: `${key}-${i}` }));
		const parameters = sendBulkParameters({ options: { idempotencyKey: '={{ $json.key }}' } });
		await send({ parameters, executionId: `idem-${n}-h1` }, items);
		const again = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-h2` }, items);
		expect(emu.control.messages()).toHaveLength(3);
		expect(again.hints).toContain('3 messages were already sent (alreadySent: true in the output): nothing was sent now.');
		expect(again.output[0].map((i) => Object.keys(i.json)[0])).toEqual(['alreadySent', 'alreadySent', 'alreadySent']);
		// One new item beside two sent ones: the hint says the others were not sent again.
		const partly = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-h3` }, [...items.slice(0, 2), { phone: '+254712342009', name: 'Amina', key: `${key}-9` }]);
		expect(partly.hints).toContain('2 messages were already sent (alreadySent: true in the output): they were not sent again.');
		expect(emu.control.messages()).toHaveLength(4);
	});

	it('a second execution, then another workflow, with the same key: one message, the first messageId, when and in which execution', async () => {
		const [first] = await send({ parameters: keyed(), executionId: `idem-${n}-a` }, [{ phone: KE, key }]);
		const [again] = await send({ parameters: keyed(), executionId: `idem-${n}-b` }, [{ phone: KE, key }]);
		const [elsewhere] = await send({ parameters: keyed(), executionId: `idem-${n}-c`, workflowId: 'another-workflow' }, [{ phone: KE, key }]);
		expect(smsTo(KE)).toHaveLength(1);
		for (const repeat of [again, elsewhere]) {
			expect(repeat).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: key, messageId: first.messageId });
			expect(repeat.sentIn).toMatchObject({ executionId: `idem-${n}-a`, workflowId: 'workflow-under-test' });
			expect(Date.parse((repeat.sentIn as IDataObject).at as string)).not.toBeNaN();
		}
	});

	it('two executions at the same instant with one key: exactly one message', async () => {
		emu.control.addFault({ kind: 'slow', delayMs: 300, pathPrefix: '/api/sms/send-api' });
		const both = await Promise.all(['x', 'y'].map(async (e) => await send({ parameters: keyed(), executionId: `idem-${n}-${e}` }, [{ phone: KE, key }])));
		expect(smsTo(KE)).toHaveLength(1);
		const outs = both.map(([json]) => json);
		expect(outs.filter((o) => o.alreadySent === true)).toHaveLength(1);
		expect(outs[0].messageId).toBe(outs[1].messageId);
	});

	it('different keys are different events: each is sent', async () => {
		await send({ parameters: keyed() }, [{ phone: KE, key }, { phone: KE, key: `${key}-2` }]);
		expect(smsTo(KE)).toHaveLength(2);
	});

	it('a send the service refused (surely not sent) releases its key: the next send with it goes', async () => {
		const GH = '+233241000111';
		const refused = await attempt(
			{ parameters: keyed({ senderId: { __rl: true, mode: 'id', value: 'ACMEKE' } }), credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-r` },
			[{ phone: GH, key }],
		);
		expect(refused.error?.message).toMatch(/sender/i);
		expect(smsTo(GH)).toHaveLength(0);
		const [sent] = await send({ parameters: keyed(), executionId: `idem-${n}-s` }, [{ phone: GH, key }]);
		expect(sent).toMatchObject({ accepted: true });
		expect(sent.alreadySent).toBeUndefined();
		expect(smsTo(GH)).toHaveLength(1);
	});

	it('a send of unknown outcome (connection cut after the service took it) holds its key: refused, not sent again', async () => {
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api' });
		const first = await attempt({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-u1` }, [{ phone: KE, key }]);
		expect(first.error).toBeDefined();
		expect(smsTo(KE)).toHaveLength(1);
		const second = await attempt({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-u2` }, [{ phone: KE, key }]);
		expect(second.error?.message).toContain(`Item 0: the message of Idempotency Key "${key}" may already have been sent`);
		expect(second.error?.description).toContain('Resend Messages With Unknown Outcome');
		expect(smsTo(KE)).toHaveLength(1);
		// Asked for: "Resend Messages With Unknown Outcome" takes the key over and sends.
		const [resent] = await send({ parameters: keyed({}, { resendUnknownOutcome: true }), executionId: `idem-${n}-u3` }, [{ phone: KE, key }]);
		expect(resent).toMatchObject({ accepted: true });
		expect(smsTo(KE)).toHaveLength(2);
	});

	it('after n8n restarts, the node’s key is still known (n8n’s database): not sent again', async () => {
		await send({ parameters: keyed(), executionId: `idem-${n}-before` }, [{ phone: KE, key }]);
		clearLocalKeys();
		clearLocalLedger();
		const [after] = await send({ parameters: keyed(), executionId: `idem-${n}-after` }, [{ phone: KE, key }]);
		expect(after).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: key });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it.each([
		['in this process', false, 'free'],
		['after n8n restarts (n8n’s database)', true, 'starter'],
	] as const)('Remember Key For 1 hour, %s: held for the hour, sent again once it is over (not at the end of a 3-hour bucket)', async (_, restart, plan) => {
		const hour = 3600_000;
		const realNow = Date.now;
		// Claimed 5 minutes into a 3-hour bucket of n8n's database marks: the bucket ends 2 h 55 min later.
		// (The clock only moves forward: the key's limiter reads it too.)
		const t0 = Math.ceil(realNow() / (3 * hour)) * 3 * hour + 5 * 60_000;
		let offset = t0 - realNow();
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
		try {
			const again = async (label: string, at: number) => {
				offset = at - realNow();
				if (restart) (clearLocalKeys(), clearLocalLedger());
				// A key of its own: its limiter sees this test's clock only.
				const credentials = apiKeyCredentials(emu.url, { plan });
				return (await send({ parameters: keyed({}, { rememberKeyHours: 1 }), credentials, executionId: `idem-${n}-${label}` }, [{ phone: KE, key }]))[0];
			};
			expect(await again('first', t0)).toMatchObject({ accepted: true });
			expect(await again('within', t0 + 58 * 60_000)).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: key });
			expect(smsTo(KE)).toHaveLength(1);
			const after = await again('after', t0 + hour + 2 * 60_000);
			expect(after).toMatchObject({ accepted: true });
			expect(after.alreadySent).toBeUndefined();
			expect(smsTo(KE)).toHaveLength(2);
			// The new send holds the key again.
			expect(await again('afterAgain', t0 + hour + 3 * 60_000)).toMatchObject({ alreadySent: true });
			expect(smsTo(KE)).toHaveLength(2);
		} finally {
			clock.mockRestore();
		}
	}, 60_000);

	it('n8n killed right after the execution ended: the key is already in n8n’s database as sent (not left to a later write)', async () => {
		const [first] = await send({ parameters: keyed(), executionId: `idem-${n}-killed` }, [{ phone: KE, key }]);
		// What the database holds when the node returns; a later group write would be lost with the process.
		const atReturn = new Map(processedData.rows);
		await new Promise((resolve) => setTimeout(resolve, 200));
		processedData.rows.clear();
		for (const [row, text] of atReturn) processedData.rows.set(row, text);
		clearLocalKeys();
		clearLocalLedger();
		const [after] = await send({ parameters: keyed(), executionId: `idem-${n}-restarted` }, [{ phone: KE, key }]);
		expect(first).toMatchObject({ accepted: true });
		expect(after).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: key });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('Dry Run tells whether the key is used and claims nothing', async () => {
		const [unused] = await send({ parameters: keyed({}, { dryRun: true }) }, [{ phone: KE, key }]);
		expect(unused).toMatchObject({ dryRun: true, idempotencyKey: key, keyAlreadyUsed: false });
		const [sent] = await send({ parameters: keyed(), executionId: `idem-${n}-d` }, [{ phone: KE, key }]);
		expect(sent.alreadySent).toBeUndefined();
		const [used] = await send({ parameters: keyed({}, { dryRun: true }) }, [{ phone: KE, key }]);
		expect(used).toMatchObject({ dryRun: true, keyAlreadyUsed: true, keyUsedIn: { executionId: `idem-${n}-d`, state: 'sent' } });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('Send Bulk: a key per recipient item; a second run sends none again', async () => {
		const items = [1, 2, 3].map((i) => ({ phone: `+25471234100${i}`, name: 'Amina', key: `${key}-${i}` }));
		const parameters = sendBulkParameters({ options: { idempotencyKey: '={{ $json.key }}' } });
		const first = await send({ parameters, executionId: `idem-${n}-b1` }, items);
		const again = await send({ parameters, executionId: `idem-${n}-b2` }, items);
		expect(emu.control.messages()).toHaveLength(3);
		expect(again.map((o) => [o.alreadySent, o.messageId])).toEqual(first.map((o) => [true, o.messageId]));
	});

	it('Chat Message → Send: the same key from a second execution sends nothing', async () => {
		const parameters = { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Your order shipped', options: { idempotencyKey: '={{ $json.key }}' } };
		const [first] = await send({ parameters, executionId: `idem-${n}-c1` }, [{ phone: OPTED_IN, key }]);
		const [again] = await send({ parameters, executionId: `idem-${n}-c2` }, [{ phone: OPTED_IN, key }]);
		expect(first).toMatchObject({ accepted: true });
		expect(again).toMatchObject({ alreadySent: true, idempotencyKey: key });
		expect(emu.control.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/api/chat/messages'))).toHaveLength(1);
	});

	it('SMS → Send and Wait: a second execution with the key sends nothing and follows the first message to its delivery', async () => {
		const parameters = keyed({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30 }, { pollInterval: 1 });
		const first = await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-w1` }, [{ phone: KE, key }]);
		const again = await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-w2` }, [{ phone: KE, key }]);
		expect(smsTo(KE)).toHaveLength(1);
		expect(first[0][0].json).toMatchObject({ delivered: true });
		expect(again[0][0].json).toMatchObject({ delivered: true, alreadySent: true, idempotencyKey: key, messageId: first[0][0].json.messageId });
	});

	it('SMS → Send and Wait after n8n restarted: a key n8n’s database knows as sent (no message ID) is refused, not sent, not waited for', async () => {
		const parameters = keyed({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30 }, { pollInterval: 1 });
		await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-z1` }, [{ phone: KE, key }]);
		clearLocalKeys();
		clearLocalLedger();
		const again = await attempt({ parameters, credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-z2` }, [{ phone: KE, key }]);
		expect(again.error?.message).toContain(`Idempotency Key "${key}" was sent by an earlier execution, and n8n’s database keeps no message ID`);
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('Campaign → Create: a second execution with the key creates no second campaign', async () => {
		const parameters = { resource: 'campaign', ...createParameters({ options: { idempotencyKey: '={{ $json.key }}' } }) };
		const creds = campaignCredentials(emu.url);
		const [first] = await send({ parameters, credentials: creds, executionId: `idem-${n}-p1` }, [{ key }]);
		const [again] = await send({ parameters, credentials: creds, executionId: `idem-${n}-p2` }, [{ key }]);
		expect(emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/campaigns')).toHaveLength(1);
		expect(again).toMatchObject({ alreadySent: true, idempotencyKey: key, id: first.id });
	});

	it('a bad key or time is refused before any request, naming the item, the field, the value and the rule', async () => {
		const noKey = await attempt({ parameters: keyed(), credentials: apiKeyCredentials(emu.url) }, [{ phone: KE, key }, { phone: KE, key: '  ' }]);
		expect(noKey.error?.message).toBe('Item 1: "Idempotency Key" must not be empty');
		const hours = await attempt({ parameters: keyed({}, { rememberKeyHours: 100 }), credentials: apiKeyCredentials(emu.url) }, [{ phone: KE, key }]);
		expect(hours.error?.message).toBe('Item 0: "Remember Key For (Hours)" must be a number of hours from 1 to 72 (got 100)');
		expect(emu.control.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('without the option nothing changes: the same message twice in two executions is sent twice', async () => {
		await send({ parameters: sendParameters(), executionId: `idem-${n}-o1` }, [{ phone: KE }]);
		const { output } = await executeNodeWithHints({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url), executionId: `idem-${n}-o2` }, [{ phone: KE }]);
		expect(output[0][0].json.alreadySent).toBeUndefined();
		expect(smsTo(KE)).toHaveLength(2);
	});
});

describe('Idempotency Key with the shared Redis', () => {
	const redis = useRedis({ password: 'redis-secret-pw' });
	const shared = () => apiKeyCredentials(emu.url, { redis: { port: redis.port, password: 'redis-secret-pw', prefix: `idem-${n}` } });

	it('two executions at the same instant on two "workers" with one key: exactly one message', async () => {
		emu.control.addFault({ kind: 'slow', delayMs: 300, pathPrefix: '/api/sms/send-api' });
		const run = async (e: string) => {
			// Each "worker" starts with nothing of its own: only Redis is shared.
			clearLocalKeys();
			return (await executeNode({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-${e}` }, [{ phone: KE, key }]))[0][0].json;
		};
		const outs = await Promise.all([run('w1'), run('w2')]);
		expect(smsTo(KE)).toHaveLength(1);
		expect(outs.filter((o) => o.alreadySent === true)).toHaveLength(1);
		expect(outs[0].messageId).toBe(outs[1].messageId);
	});

	it('another workflow and a restarted process find the key in Redis: not sent again', async () => {
		const [first] = await send({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-r1` }, [{ phone: KE, key }]);
		clearLocalKeys();
		clearLocalLedger();
		const [again] = await send({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-r2`, workflowId: 'another-workflow' }, [{ phone: KE, key }]);
		expect(again).toMatchObject({ alreadySent: true, messageId: first.messageId, sentIn: { executionId: `idem-${n}-r1` } });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('unknown outcome holds the key in Redis; a refusal before sending releases it', async () => {
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api' });
		await attempt({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-k1` }, [{ phone: KE, key }]);
		const held = await attempt({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-k2` }, [{ phone: KE, key }]);
		expect(held.error?.message).toContain('may already have been sent');
		expect(smsTo(KE)).toHaveLength(1);
		const GH = '+233241000222';
		await attempt({ parameters: keyed({ senderId: { __rl: true, mode: 'id', value: 'ACMEKE' } }), credentials: shared(), executionId: `idem-${n}-k3` }, [{ phone: GH, key: `${key}-gh` }]);
		await send({ parameters: keyed(), credentials: shared(), executionId: `idem-${n}-k4` }, [{ phone: GH, key: `${key}-gh` }]);
		expect(smsTo(GH)).toHaveLength(1);
	});

	it('Redis keeps digests: no key, API key or password in its keys, nor secrets in its values', async () => {
		await send({ parameters: keyed(), credentials: shared() }, [{ phone: KE, key }]);
		const client = new Redis({ port: redis.port, password: 'redis-secret-pw', lazyConnect: true });
		await client.connect();
		try {
			const keys = await client.keys(`idem-${n}:idem:*`);
			expect(keys).toHaveLength(1);
			expect(keys[0]).toMatch(new RegExp(`^idem-${n}:idem:\\{[0-9a-f]{32}\\}:[0-9a-f]{32}$`));
			const value = (await client.get(keys[0]))!;
			for (const secret of [SEED_KEYS.business, 'redis-secret-pw']) expect(value).not.toContain(secret);
			expect(keys[0]).not.toContain(key);
			expect(await client.pttl(keys[0])).toBeGreaterThan(23 * 3600_000);
		} finally {
			client.disconnect();
		}
	});
});

describe('Idempotency Key: one key on several items of a run is refused before any request', () => {
	const chat = { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Your order shipped' };
	const operations: Array<[string, IDataObject, () => IDataObject[]]> = [
		['SMS → Send', sendParameters(), () => [{ phone: KE }, { phone: '+254712340002' }, { phone: '+2348031234567' }]],
		['SMS → Send Bulk', sendBulkParameters(), () => [1, 2, 3].map((i) => ({ phone: `+25471234100${i}`, name: 'Amina' }))],
		['SMS → Send and Wait', { ...sendParameters(), operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30 }, () => [{ phone: KE }, { phone: '+254712340002' }, { phone: '+2348031234567' }]],
		['Chat Message → Send', chat, () => [{ phone: OPTED_IN }, { phone: OPTED_IN }, { phone: OPTED_IN }]],
	];

	it.each(operations)('%s with a fixed key on 3 items: refused, naming the items, the key and a per-item expression; 0 sent', async (_name, parameters, items) => {
		const fixed = { ...parameters, options: { idempotencyKey: 'shipping-notice' } };
		const refused = await attempt({ parameters: fixed, credentials: apiKeyCredentials(emu.url) }, items());
		expect(refused.error?.message).toBe('Items 0, 1, 2 share Idempotency Key "shipping-notice": a key must name one message, so all but the first would not be sent');
		expect(refused.error?.description).toContain('{{ $json.orderId }}-{{ $json.phone }}');
		expect(emu.control.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('Campaign → Create with one key on 2 items: refused, no campaign created', async () => {
		const parameters = { resource: 'campaign', ...createParameters({ options: { idempotencyKey: 'launch' } }) };
		const refused = await attempt({ parameters, credentials: campaignCredentials(emu.url) }, [{}, {}]);
		expect(refused.error?.message).toBe('Items 0, 1 share Idempotency Key "launch": a key must name one message, so all but the first would not be sent');
		expect(emu.control.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('Send Bulk, Continue On Fail: the items sharing a key are error items (paired, no other item\'s number or message ID); the item with its own key is sent', async () => {
		const items = [{ phone: '+254712341001', key }, { phone: '+254712341002', key }, { phone: '+254712341003', key: `${key}-own` }].map((item) => ({ ...item, name: 'Amina' }));
		const parameters = sendBulkParameters({ options: { idempotencyKey: '={{ $json.key }}' } });
		const { output } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url), settings: { onError: 'continueRegularOutput' } }, items);
		const out = output[0];
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// Each error item shows its own number, never another item's, and no message ID.
		expect(out.slice(0, 2).map((i) => [i.json.accepted, i.json.messageId, i.json.phoneNumber])).toEqual([
			[false, undefined, '+254712341001'],
			[false, undefined, '+254712341002'],
		]);
		expect(out[1].json.errorMessage).toContain('Items 0, 1 share Idempotency Key');
		expect(out[2].json).toMatchObject({ accepted: true, phoneNumber: '+254712341003' });
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual(['+254712341003']);
	});

	it('Dry Run refuses it too', async () => {
		const refused = await attempt({ parameters: sendParameters({ options: { idempotencyKey: 'same', dryRun: true } }), credentials: apiKeyCredentials(emu.url) }, [{ phone: KE }, { phone: KE }]);
		expect(refused.error?.message).toContain('Items 0, 1 share Idempotency Key "same"');
	});
});
