import { createHmac } from 'crypto';

import { useEmulator } from '../helpers/emulatorFixture';
import { SEED_LOGINS, startEmulator } from './index';
import { Client, expectError } from './testkit';

const emu = useEmulator({ timeScale: 1 });
const api = new Client(emu);

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('login', () => {
	it('returns an HS256 JWT valid for 3600 s, a refresh token and expiresIn', async () => {
		const res = await api.post('/api/auth/login', { email: SEED_LOGINS.demo.email, password: SEED_LOGINS.demo.password });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			success: true,
			data: { accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 3600 },
		});
		const [header, payload] = res.body.data.accessToken.split('.');
		expect(decode(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
		const claims = decode(payload);
		expect(claims.sub).toBe('acc_demo');
		expect(claims.exp - claims.iat).toBe(3600);
	});

	it('rejects wrong credentials with 401 UNAUTHORIZED without echoing the password', async () => {
		const res = await api.post('/api/auth/login', { email: SEED_LOGINS.demo.email, password: 'hunter2-wrong' });
		expectError(res, 401, 'UNAUTHORIZED', /Invalid email or password/);
		expect(JSON.stringify(res.body)).not.toContain('hunter2');
		expectError(await api.post('/api/auth/login', { email: 'nobody@svc.test', password: 'x' }), 401, 'UNAUTHORIZED');
		expectError(await api.post('/api/auth/login', { email: SEED_LOGINS.demo.email }), 400, 'BAD_REQUEST', /password is required/);
		expectError(await api.post('/api/auth/login', { email: 5, password: 'x' }), 400, 'BAD_REQUEST', /email must be a string/);
	});
});

describe('Bearer endpoints', () => {
	it('return the balance to a valid token', async () => {
		const token = await api.login();
		const res = await api.get('/api/account/balance', { token });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ success: true, data: { credits: 1000, updatedAt: expect.any(String) } });
		const broke = await api.get('/api/account/balance', { token: await api.login(SEED_LOGINS.broke) });
		expect(broke.body.data.credits).toBe(0);
	});

	it('reject missing, malformed and forged tokens with 401', async () => {
		const token = await api.login();
		expectError(await api.get('/api/account/balance'), 401, 'UNAUTHORIZED', /Missing Authorization header/);
		expectError(await api.get('/api/account/balance', { headers: { authorization: token } }), 401, 'UNAUTHORIZED', /Bearer/);
		expectError(await api.get('/api/account/balance', { token: 'not.a.jwt' }), 401, 'UNAUTHORIZED', /Invalid access token/);
		const [header, payload] = token.split('.');
		const claims = { ...decode(payload), sub: 'acc_broke' };
		const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
		const wrongKey = createHmac('sha256', 'guessed-secret').update(tampered).digest('base64url');
		expectError(await api.get('/api/account/balance', { token: `${tampered}.${wrongKey}` }), 401, 'UNAUTHORIZED', /Invalid access token/);
		const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
		expectError(await api.get('/api/account/balance', { token: none }), 401, 'UNAUTHORIZED', /Invalid access token/);
	});

	it('reject a token once the clock passes its expiry', async () => {
		const token = await api.login();
		await emu.control.advance(3599_000);
		expect((await api.get('/api/account/balance', { token })).status).toBe(200);
		await emu.control.advance(2000);
		expectError(await api.get('/api/account/balance', { token }), 401, 'UNAUTHORIZED', /Access token expired/);
		expect((await api.get('/api/account/balance', { token: await api.login() })).status).toBe(200);
	});

	it('reject every earlier token after tokens/expire', async () => {
		const token = await api.login();
		expect((await api.post('/__emulator/tokens/expire')).status).toBe(200);
		expectError(await api.get('/api/account/balance', { token }), 401, 'UNAUTHORIZED', /Access token expired/);
		const fresh = await api.login();
		expect((await api.get('/api/account/balance', { token: fresh })).status).toBe(200);
		emu.control.expireTokens();
		expect((await api.get('/api/account/balance', { token: fresh })).status).toBe(401);
	});

	it('honour the tokenTtlSeconds option', async () => {
		const short = await startEmulator({ tokenTtlSeconds: 60 });
		try {
			const client = new Client(short.url);
			const res = await client.post('/api/auth/login', SEED_LOGINS.demo);
			expect(res.body.data.expiresIn).toBe(60);
			await short.control.advance(61_000);
			expect((await client.get('/api/account/balance', { token: res.body.data.accessToken })).status).toBe(401);
		} finally {
			await short.close();
		}
	});
});
