/**
 * The account login (SvcMessagingAccountApi preAuthentication) through n8n-core's
 * real request helpers against the emulator, whose injected faults (test/emulator/faults.ts) make
 * the login answer 500, 503 or 429. A transient failure is tried again (LOGIN_RETRY: 3 tries, the
 * 429's Retry-After honoured) and, when it persists, reported as what it was — not a wrong password.
 */
import { useEmulator } from '../helpers/emulatorFixture';
import { LOGIN_RETRY } from '../../nodes/SvcMessaging/transport/loginRetry';
import { errorOf, requests, run, SEED_LOGINS } from './helpers';

const emu = useEmulator();

const balance = async () => (await run(emu.url, { resource: 'account', operation: 'getBalance' }))[0];
const logins = () => requests(emu, 'POST', '/api/auth/login').map((r) => r.status);
const LOGIN = { method: 'POST', pathPrefix: '/api/auth/login' };

describe('a transient login failure is tried again', () => {
	it.each([500, 503])('a login answered %i once: tried again, the balance comes back', async (status) => {
		emu.control.addFault({ ...LOGIN, kind: 'server-error', status, count: 1 });
		expect((await balance()).json.credits).toBe(1000);
		expect(logins()).toEqual([status, 200]);
	});

	it("a 429 on the login: tried again after the service's Retry-After", async () => {
		emu.control.addFault({ ...LOGIN, kind: 'rate-limit', retryAfterSeconds: 1, count: 1 });
		const started = Date.now();
		expect((await balance()).json.credits).toBe(1000);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(logins()).toEqual([429, 200]);
	});
});

describe('a login failure that persists says what it was', () => {
	it('503 on every try: "the service was unavailable", LOGIN_UNAVAILABLE, after 3 tries; nothing else requested', async () => {
		emu.control.addFault({ ...LOGIN, kind: 'server-error', status: 503, count: 10 });
		const error = await errorOf(balance());
		expect(error.message).toBe(
			'SVC Messaging login failed (HTTP 503 SERVICE_UNAVAILABLE): the service was unavailable, so the email and password were not checked. Try again later.',
		);
		expect(error.message).not.toMatch(/check the email and password/);
		expect((error as { context?: { errorCode?: unknown } }).context?.errorCode).toBe('LOGIN_UNAVAILABLE');
		expect(logins()).toEqual(Array(LOGIN_RETRY.attempts).fill(503));
		expect(requests(emu, 'GET', '/api/account/balance')).toHaveLength(0);
	});

	it('500 on every try: LOGIN_UNAVAILABLE, not a wrong password', async () => {
		emu.control.addFault({ ...LOGIN, kind: 'server-error', status: 500, count: 10 });
		const error = await errorOf(balance());
		expect(error.message).toMatch(/^SVC Messaging login failed \(HTTP 500 INTERNAL_ERROR\): the service was unavailable/);
		expect((error as { context?: { errorCode?: unknown } }).context?.errorCode).toBe('LOGIN_UNAVAILABLE');
		expect(logins()).toEqual([500, 500, 500]);
	});

	it('429 on every try: "rate limited", LOGIN_RATE_LIMITED', async () => {
		emu.control.addFault({ ...LOGIN, kind: 'rate-limit', retryAfterSeconds: 0, count: 10 });
		const error = await errorOf(balance());
		expect(error.message).toBe(
			'SVC Messaging login failed (HTTP 429 RATE_LIMIT_EXCEEDED): the service rate limited the login, so the email and password were not checked. Try again later.',
		);
		expect((error as { context?: { errorCode?: unknown } }).context?.errorCode).toBe('LOGIN_RATE_LIMITED');
		expect(logins()).toEqual([429, 429, 429]);
	});

	it('a Retry-After longer than LOGIN_RETRY.maxRetryAfterMs is not waited for: one try, LOGIN_RATE_LIMITED', async () => {
		emu.control.addFault({ ...LOGIN, kind: 'rate-limit', retryAfterSeconds: 600, count: 10 });
		const started = Date.now();
		const error = await errorOf(balance());
		expect(Date.now() - started).toBeLessThan(5000);
		expect((error as { context?: { errorCode?: unknown } }).context?.errorCode).toBe('LOGIN_RATE_LIMITED');
		expect(logins()).toEqual([429]);
	});

	it('a wrong password is still tried once, LOGIN_FAILED', async () => {
		const error = await errorOf(run(emu.url, { resource: 'account', operation: 'getBalance' }, [{}], { login: { email: SEED_LOGINS.demo.email, password: 'wrong' } }));
		expect((error as { context?: { errorCode?: unknown } }).context?.errorCode).toBe('LOGIN_FAILED');
		expect(logins()).toEqual([401]);
	});
});
