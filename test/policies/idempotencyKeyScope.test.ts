/**
 * Options → Idempotency Key: whose keys they are and how long they hold. Keys belong to
 * the account, not its API key: a rotated key (two API keys of one emulator account) sends nothing
 * again, with and without the shared Redis, and a key a Redis holds under the former scope (the API
 * key's, before this version) still counts. Without Redis a held key is never dropped for others
 * (G4), and n8n's database failing a claim is named as n8n's database (G6). Counted at the emulator.
 */
import type { IDataObject } from 'n8n-workflow';
import Redis from 'ioredis';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { processedData } from '../helpers/processedData';
import { useRedis } from '../helpers/redisFixture';
import { sendBulkParameters, sendParameters } from '../sms/fixtures';
import { clearLocalKeys, LOCAL_KEYS } from '../../nodes/SvcMessaging/sending/keys/keyClaims';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { digest } from '../../nodes/SvcMessaging/transport/redis';

const emu = useEmulator();
let n = 0;
let key = '';
beforeEach(() => {
	n++;
	key = `invoice-${Date.now().toString(36)}-${n}-paid`;
});
afterEach(() => {
	processedData.failWith = undefined;
	LOCAL_KEYS.maxKeys = 100_000;
});

const KE = '+254712350001';
const smsTo = (phone: string) => emu.control.messages().filter((m) => m.phoneNumber === phone);
const keyed = (options: IDataObject = {}) => sendParameters({ options: { idempotencyKey: '={{ $json.key }}', ...options } });
const keepGoing = { onError: 'continueRegularOutput' } as const;

/** One account with two live API keys (the old one and its rotation) and a sandbox key. */
function rotatedAccount() {
	const apiKeys = [`svc_live_rot${n}_old`, `svc_live_rot${n}_new`, `svc_test_rot${n}_sandbox`];
	emu.control.addAccount({ email: `rotate-${n}@svc.test`, password: 'p', credits: 1000, apiKeys: apiKeys.map((k) => ({ key: k, tier: 'business' })) });
	return apiKeys;
}

async function send(setup: NodeSetup, items: IDataObject[]) {
	return (await executeNode(setup, items))[0].map((item) => item.json);
}

describe('a rotated API key keeps the account’s keys', () => {
	it('without Redis: the key rotated in its credential, another workflow and the node after n8n restarted send nothing again', async () => {
		const [oldKey, newKey] = rotatedAccount();
		const credentialId = `rotating-${n}`;
		const [first] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: oldKey }), credentialId, executionId: `rot-${n}-a` }, [{ phone: KE, key }]);
		expect(first.accepted).toBe(true);
		const [elsewhere] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: newKey }), credentialId, executionId: `rot-${n}-b`, workflowId: 'another-workflow' }, [{ phone: KE, key }]);
		expect(elsewhere).toMatchObject({ alreadySent: true, messageId: first.messageId });
		clearLocalKeys();
		clearLocalLedger();
		const [restarted] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: newKey }), credentialId, executionId: `rot-${n}-c` }, [{ phone: KE, key }]);
		expect(restarted).toMatchObject({ alreadySent: true, idempotencyKey: key });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('without Redis: two accounts’ credentials on one Base URL neither hold back nor see each other’s keys', async () => {
		const [mine] = rotatedAccount();
		n++;
		const [theirs] = rotatedAccount();
		const [first] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: mine }), executionId: `two-${n}-a` }, [{ phone: KE, key }]);
		const [second] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: theirs }), executionId: `two-${n}-b`, workflowId: 'their-workflow' }, [{ phone: KE, key }]);
		expect(first.accepted).toBe(true);
		expect(second.accepted).toBe(true);
		expect(second.alreadySent).toBeUndefined();
		expect(second.messageId).not.toBe(first.messageId);
		expect(smsTo(KE)).toHaveLength(2);
	});

	it('a sandbox key of the account is not the live account: its key does not hold back a real send', async () => {
		const [live, , sandbox] = rotatedAccount();
		await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: sandbox }), executionId: `rot-${n}-s` }, [{ phone: KE, key }]);
		const [real] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url, { apiKey: live }), executionId: `rot-${n}-l` }, [{ phone: KE, key }]);
		expect(real.alreadySent).toBeUndefined();
		expect(smsTo(KE)).toHaveLength(2);
	});
});

describe('with the shared Redis', () => {
	const redis = useRedis();
	const shared = (apiKey: string) => apiKeyCredentials(emu.url, { apiKey, redis: { port: redis.port, prefix: `scope-${n}` } });

	it('the new API key on another worker finds the old key’s send: nothing sent again', async () => {
		const [oldKey, newKey] = rotatedAccount();
		const [first] = await send({ parameters: keyed(), credentials: shared(oldKey), executionId: `rr-${n}-a` }, [{ phone: KE, key }]);
		clearLocalKeys();
		clearLocalLedger();
		const [again] = await send({ parameters: keyed(), credentials: shared(newKey), executionId: `rr-${n}-b`, workflowId: 'another-workflow' }, [{ phone: KE, key }]);
		expect(again).toMatchObject({ alreadySent: true, messageId: first.messageId, sentIn: { executionId: `rr-${n}-a` } });
		expect(smsTo(KE)).toHaveLength(1);
	});

	it('a key held under the former scope (the API key’s, written before the upgrade) still counts', async () => {
		const [oldKey] = rotatedAccount();
		const formerAccount = digest(`${emu.url.replace(/\/+$/, '')}\u0000${oldKey}`);
		const client = new Redis({ port: redis.port, lazyConnect: true });
		await client.connect();
		const earlier = { state: 'sent', token: 'before-upgrade', executionId: 'exec-before', workflowId: 'w', at: Date.now() - 60_000, sentAt: new Date().toISOString(), results: [{ accepted: true, messageId: 'msg-before' }] };
		await client.set(`scope-${n}:idem:${digest(`${formerAccount}\u0000${key}`)}`, JSON.stringify(earlier), 'PX', 3600_000);
		client.disconnect();
		const [again] = await send({ parameters: keyed(), credentials: shared(oldKey), executionId: `rr-${n}-c` }, [{ phone: KE, key }]);
		expect(again).toMatchObject({ alreadySent: true, messageId: 'msg-before', sentIn: { executionId: 'exec-before' } });
		expect(smsTo(KE)).toHaveLength(0);
	});
});

describe('without Redis, this process', () => {
	it('never drops a held key for others: past its bound a new key is refused unsent (IDEMPOTENCY_KEYS_FULL), and the held key still holds in another workflow', async () => {
		clearLocalKeys();
		LOCAL_KEYS.maxKeys = 20;
		await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `full-${n}-a` }, [{ phone: KE, key }]);
		const items = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ phone: `+2547123${String(60_000 + from + i)}`, name: 'A', key: `${key}-${from + i}` }));
		const bulk = sendBulkParameters({ options: { idempotencyKey: '={{ $json.key }}' } });
		const filled = await send({ parameters: bulk, credentials: apiKeyCredentials(emu.url), executionId: `full-${n}-b`, workflowId: 'bulk-workflow' }, items(0, 19));
		expect(filled.filter((json) => json.accepted === true)).toHaveLength(19);
		const refused = await send({ parameters: bulk, credentials: apiKeyCredentials(emu.url), executionId: `full-${n}-c`, workflowId: 'bulk-workflow', settings: keepGoing }, items(100, 5));
		expect(refused.map((json) => json.errorCode)).toEqual(Array(5).fill('IDEMPOTENCY_KEYS_FULL'));
		expect(String(refused[0].errorMessage)).toContain('already holds 20 Idempotency Keys');
		const [again] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `full-${n}-d`, workflowId: 'third-workflow' }, [{ phone: KE, key }]);
		expect(again.alreadySent).toBe(true);
		expect(smsTo(KE)).toHaveLength(1);
		expect(emu.control.messages()).toHaveLength(20);
	});

	it('n8n’s database down: a keyed send fails unsent, naming n8n’s database (LEDGER_UNAVAILABLE), not the service', async () => {
		processedData.failWith = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
		const [failed] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `db-${n}-a`, settings: keepGoing }, [{ phone: KE, key }]);
		expect(failed.errorCode).toBe('LEDGER_UNAVAILABLE');
		expect(String(failed.errorMessage)).toMatch(/n8n’s database did not take the Idempotency Key’s claim/);
		expect(String(failed.errorMessage)).not.toMatch(/service refused|offline/);
		expect(emu.control.messages()).toHaveLength(0);
		processedData.failWith = undefined;
		const [later] = await send({ parameters: keyed(), credentials: apiKeyCredentials(emu.url), executionId: `db-${n}-b` }, [{ phone: KE, key }]);
		expect(later.accepted).toBe(true);
		expect(smsTo(KE)).toHaveLength(1);
	});
});
