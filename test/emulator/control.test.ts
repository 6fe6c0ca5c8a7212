import { request } from 'undici';

import { useEmulator } from '../helpers/emulatorFixture';
import { defaultSeed, SEED_KEYS } from './index';
import { Client, expectError, startReceiver } from './testkit';
import { waitFor } from '../helpers/waitFor';

const emu = useEmulator();
const api = new Client(emu);
const key = SEED_KEYS.business;

const sms = () => api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key });
const credits = () => emu.state.accounts.get('acc_demo')!.credits;

describe('faults', () => {
	it('injects 429 bursts with Retry-After, without processing', async () => {
		const fault = await api.post('/__emulator/faults', { kind: 'rate-limit', count: 2, retryAfterSeconds: 3, pathPrefix: '/api/sms/' });
		expect(fault.status).toBe(201);
		expect(fault.body.data).toMatchObject({ kind: 'rate-limit', remaining: 2 });
		for (let i = 0; i < 2; i++) {
			const res = await sms();
			expectError(res, 429, 'RATE_LIMIT_EXCEEDED', /injected/);
			expect(res.headers['retry-after']).toBe('3');
		}
		expect((await sms()).status).toBe(202);
		expect(emu.control.messages()).toHaveLength(1);
		expect((await api.get('/__emulator/faults')).body.data).toEqual([]);
	});

	it('injects 5xx answers for matching method and path only', async () => {
		emu.control.addFault({ kind: 'server-error', status: 503, method: 'get', pathPrefix: '/api/sms/sender-ids' });
		expect((await sms()).status).toBe(202);
		const res = await api.get('/api/sms/sender-ids', { key });
		expectError(res, 503, 'SERVICE_UNAVAILABLE', /Injected server error \(503\)/);
		emu.control.addFault({ kind: 'server-error' });
		expectError(await sms(), 500, 'INTERNAL_ERROR');
		expect(credits()).toBe(999);
	});

	it('drops the connection before processing: nothing is charged', async () => {
		emu.control.addFault({ kind: 'drop-before-processing' });
		await expect(sms()).rejects.toThrow();
		expect(emu.control.messages()).toHaveLength(0);
		expect(credits()).toBe(1000);
	});

	it('drops the connection after processing: the message is accepted and charged', async () => {
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api' });
		await expect(sms()).rejects.toThrow();
		expect(emu.control.messages()).toHaveLength(1);
		expect(credits()).toBe(999);
		const [log] = emu.control.requests();
		expect(log).toMatchObject({ path: '/api/sms/send-api', status: null, fault: 'drop-after-processing' });
	});

	it('delays slow requests by delayMs (real time), then processes them normally', async () => {
		emu.control.addFault({ kind: 'slow', delayMs: 300, count: 1 });
		const started = Date.now();
		expect((await sms()).status).toBe(202);
		expect(Date.now() - started).toBeGreaterThanOrEqual(295);
	});

	it('clears faults and never applies them to the control surface', async () => {
		emu.control.addFault({ kind: 'server-error', count: 100, pathPrefix: '/' });
		expect((await api.get('/__emulator/accounts')).status).toBe(200);
		expect((await api.delete('/__emulator/faults')).status).toBe(200);
		expect((await sms()).status).toBe(202);
		expectError(await api.post('/__emulator/faults', { kind: 'explode' }), 400, 'BAD_REQUEST', /kind must be one of/);
	});
});

describe('request log', () => {
	it('records method, path, status, time and only the last 4 characters of the key', async () => {
		const token = await api.login();
		await sms();
		await api.get('/api/account/balance', { token });
		await api.post('/api/sms/send-api', { phoneNumber: 'x', message: 'x' }, { key: 'svc_test_unknown_9999' });
		const res = await api.get('/__emulator/requests');
		const log = res.body.data;
		expect(log.map((r: { method: string; path: string; status: number }) => [r.method, r.path, r.status])).toEqual([
			['POST', '/api/auth/login', 200],
			['POST', '/api/sms/send-api', 202],
			['GET', '/api/account/balance', 200],
			['POST', '/api/sms/send-api', 401],
		]);
		expect(log[1]).toMatchObject({ auth: 'apiKey', keyLast4: '0001', accountId: 'acc_demo', time: expect.any(String), errorCode: null });
		expect(log[2]).toMatchObject({ auth: 'bearer', keyLast4: null, accountId: 'acc_demo' });
		expect(log[3]).toMatchObject({ errorCode: 'UNAUTHORIZED', keyLast4: null });
		const text = JSON.stringify(log);
		for (const secret of [key, token, 'demo-password', 'svc_test_unknown_9999']) expect(text).not.toContain(secret);
		expect((await api.delete('/__emulator/requests')).status).toBe(200);
		expect(emu.control.requests()).toEqual([]);
	});
});

describe('accounts, opt-ins, reset and routing', () => {
	it('adds an account with 10 signup credits and a generated key', async () => {
		const res = await api.post('/__emulator/accounts', { email: 'new@svc.test', password: 'new-password', chatRegistered: true });
		expect(res.status).toBe(201);
		const account = res.body.data;
		expect(account).toMatchObject({ email: 'new@svc.test', credits: 10, chatRegistered: true, hasWebhookSecret: false });
		expect(account).not.toHaveProperty('password');
		const [generated] = account.apiKeys;
		expect(generated).toMatchObject({ key: expect.stringMatching(/^svc_test_/), tier: 'free', requestsPerSecond: 5, recipientsPerCall: 100 });
		const sent = await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x' }, { key: generated.key });
		expect(sent.body.data.creditsRemaining).toBe(9);
		const login = await api.post('/api/auth/login', { email: 'new@svc.test', password: 'new-password' });
		expect(login.status).toBe(200);
		expectError(await api.post('/__emulator/accounts', { email: 'new@svc.test', password: 'x' }), 409, 'ACCOUNT_EXISTS');
		expectError(await api.post('/__emulator/accounts', { password: 'x' }), 400, 'BAD_REQUEST', /email is required/);
	});

	it('adds an Enterprise key with custom limits', () => {
		const account = emu.control.addAccount({
			email: 'big@svc.test',
			password: 'p',
			credits: 50_000,
			apiKeys: [{ key: 'svc_live_big_0001', tier: 'enterprise', requestsPerSecond: 1000, recipientsPerCall: 50_000 }],
		});
		expect(account.apiKeys[0]).toMatchObject({ tier: 'enterprise', requestsPerSecond: 1000, recipientsPerCall: 50_000 });
		expect(account.credits).toBe(50_000);
	});

	it('patches credits, webhook settings, chat registration and tier', async () => {
		const res = await api.patch('/__emulator/accounts/acc_demo', {
			credits: 5,
			webhookUrl: 'http://127.0.0.1:1/hook',
			webhookSecret: 's3cret',
			chatRegistered: false,
			tier: 'starter',
		});
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({ credits: 5, webhookUrl: 'http://127.0.0.1:1/hook', hasWebhookSecret: true, chatRegistered: false });
		expect(JSON.stringify(res.body)).not.toContain('s3cret');
		expect(res.body.data.apiKeys.every((k: { tier: string; requestsPerSecond: number }) => k.tier === 'starter' && k.requestsPerSecond === 20)).toBe(true);
		expectError(await api.patch('/__emulator/accounts/acc_nope', { credits: 1 }), 404, 'NOT_FOUND');
		expectError(await api.patch('/__emulator/accounts/acc_demo', { credits: 'lots' }), 400, 'BAD_REQUEST', /credits must be a number/);
		expectError(await api.patch('/__emulator/accounts/acc_demo', { tier: 'gold' }), 400, 'BAD_REQUEST', /tier must be one of/);
	});

	it('resets to the default seed or a given seed, dropping records, timers and pending webhooks', async () => {
		const receiver = await startReceiver();
		try {
			emu.control.updateAccount('acc_demo', { webhookUrl: receiver.url });
			const scheduledAt = new Date(Date.parse(emu.control.now()) + 60_000).toISOString();
			await api.post('/api/sms/send-api', { phoneNumber: '+254712345678', message: 'x', scheduledAt }, { key });
			await waitFor('pending event', () => emu.control.webhookAttempts().length === 1, 10_000, 10);
			const res = await api.post('/__emulator/reset');
			expect(res.body.data).toEqual({ accounts: ['acc_demo', 'acc_broke', 'acc_nochat'] });
			expect(emu.control.messages()).toEqual([]);
			expect(emu.control.webhookAttempts()).toEqual([]);
			await emu.control.advance(120_000);
			expect(receiver.received).toHaveLength(1);
			const seed = defaultSeed();
			seed.accounts = seed.accounts.slice(0, 1);
			seed.accounts[0].credits = 7;
			emu.control.reset(seed);
			expect(emu.control.accounts().map((a) => [a.id, a.credits])).toEqual([['acc_demo', 7]]);
			expectError(await api.get('/api/sms/sender-ids', { key: SEED_KEYS.broke }), 401, 'UNAUTHORIZED');
			expectError(await api.post('/__emulator/reset', { accounts: 'x' }), 400, 'BAD_REQUEST', /seed/);
		} finally {
			await receiver.close();
		}
	});

	it('reads messages, chat messages and webhook attempts over HTTP with filters', async () => {
		const sent = await sms();
		await api.post('/api/chat/messages', { phoneNumber: '+254712345678', type: 'text', text: { body: 'hi' } }, { key });
		const messages = await api.get(`/__emulator/messages?accountId=acc_demo&phoneNumber=${encodeURIComponent('+254712345678')}`);
		expect(messages.body.data).toEqual([expect.objectContaining({ messageId: sent.body.data.messageId, accountId: 'acc_demo', status: expect.any(String) })]);
		expect((await api.get('/__emulator/messages?accountId=acc_broke')).body.data).toEqual([]);
		const chat = await api.get('/__emulator/chat-messages');
		expect(chat.body.data).toEqual([expect.objectContaining({ type: 'text', phoneNumber: '+254712345678', createdAt: expect.any(String) })]);
		expect((await api.get('/__emulator/webhooks')).body.data).toEqual([]);
		expect((await api.get('/__emulator/accounts/acc_broke')).body.data).toMatchObject({ id: 'acc_broke', credits: 0 });
	});

	it('answers unknown routes with 404 NOT_FOUND in the envelope', async () => {
		expectError(await api.get('/api/nothing', { key }), 404, 'NOT_FOUND', /No route for GET \/api\/nothing/);
		expectError(await api.get('/__emulator/nothing'), 404, 'NOT_FOUND');
		const res = await request(`${emu.url}/api/sms/send-api`, { method: 'PUT', headers: { 'x-api-key': key } });
		expect(res.statusCode).toBe(404);
		await res.body.dump();
	});
});

describe('carrier hold', () => {
	it('keeps messages SENT with no final report until released, then ends them', async () => {
		expect((await api.post('/__emulator/carrier', { hold: 'yes' })).status).toBe(400);
		expect((await api.post('/__emulator/carrier', { hold: true })).body.data).toEqual({ held: true, released: 0 });
		const res = await api.post('/api/sms/send-api', { phoneNumber: '+254712345999', message: 'held', webhookUrl: 'http://127.0.0.1:9/none' }, { key });
		expect(res.status).toBe(202);
		const { messageId } = res.body.data;
		await emu.control.advance(60_000);
		expect(emu.control.messages()[0].status).toBe('SENT');
		expect((await api.get(`/api/sms/messages/${messageId}`, { key })).body.data.status).toBe('SENT');
		expect(emu.control.webhookAttempts({ messageId }).map((a) => a.event)).not.toContain('message.failed');

		expect((await api.post('/__emulator/carrier', { hold: false })).body.data).toEqual({ held: false, released: 1 });
		expect(emu.control.messages()[0]).toMatchObject({ status: 'FAILED', failureReason: { code: 'DESTINATION_NOT_REACHABLE' } });
		await waitFor('the final report', () => emu.control.webhookAttempts({ messageId, event: 'message.failed' }).length > 0, 10_000, 10);
	});

	it('is lifted by reset', async () => {
		await api.post('/__emulator/carrier', { hold: true });
		emu.control.reset();
		await sms();
		await emu.control.advance(60_000);
		expect(emu.control.messages()[0].status).toBe('DELIVERED');
	});
});

describe('lost reports', () => {
	it('posts no delivery report for messages to the listed numbers; the message itself still ends', async () => {
		expect((await api.post('/__emulator/reports/lost', { phoneNumbers: '+254712345999' })).status).toBe(400);
		expect((await api.post('/__emulator/reports/lost', { phoneNumbers: ['+254712345999'] })).body.data).toEqual({ phoneNumbers: ['+254712345999'] });
		const send = (phoneNumber: string) =>
			api.post('/api/sms/send-api', { phoneNumber, message: 'lost?', webhookUrl: 'http://127.0.0.1:9/none' }, { key });
		const lost = (await send('+254712345999')).body.data.messageId;
		const kept = (await send('+254712345001')).body.data.messageId;
		await emu.control.advance(60_000);
		expect((await api.get(`/api/sms/messages/${lost}`, { key })).body.data.status).toBe('FAILED');
		expect(emu.control.webhookAttempts({ messageId: lost })).toEqual([]);
		await waitFor('the kept report', () => emu.control.webhookAttempts({ messageId: kept, event: 'message.delivered' }).length > 0, 10_000, 10);

		expect((await api.post('/__emulator/reports/lost', { phoneNumbers: [] })).body.data).toEqual({ phoneNumbers: [] });
		emu.control.reset();
	});
});
