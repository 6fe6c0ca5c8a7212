import { useEmulator } from '../helpers/emulatorFixture';
import { credentialsHelper } from '../helpers/n8n';
import { byId, createCampaign, credits, errorOf, getCampaign, requests, run, SEED_LOGINS } from './helpers';

const emu = useEmulator();

const balance = async (options: Parameters<typeof run>[3] = {}) =>
	(await run(emu.url, { resource: 'account', operation: 'getBalance' }, [{}], options))[0];

async function login(): Promise<string> {
	const response = await fetch(`${emu.url}/api/auth/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ email: SEED_LOGINS.demo.email, password: SEED_LOGINS.demo.password }),
	});
	return ((await response.json()) as { data: { accessToken: string } }).data.accessToken;
}

describe('Account → Get Balance', () => {
	it('returns the balance as the service reports it ({ credits, updatedAt })', async () => {
		const item = await balance();
		expect(Object.keys(item.json).sort()).toEqual(['credits', 'updatedAt']);
		expect(item.json.credits).toBe(1000);
		expect(Number.isNaN(Date.parse(String(item.json.updatedAt)))).toBe(false);
		expect(item.pairedItem).toEqual({ item: 0 });
		expect((await balance({ login: SEED_LOGINS.broke })).json.credits).toBe(0);
	});

	it('goes down by the cost of a sent campaign', async () => {
		const c = await createCampaign(emu.url, { message: 'x'.repeat(161) });
		expect(c.estimatedCredits).toBe(4);
		const [sent] = await run(emu.url, { operation: 'sendNow', campaignId: byId(c.id) });
		expect(sent.json.cost).toBe(4);
		expect((await balance()).json.credits).toBe(996);
	});

	it('a wrong password stops at the login, and the error does not contain the password', async () => {
		const error = await errorOf(balance({ login: { email: SEED_LOGINS.demo.email, password: 'not-the-password' } }));
		expect(error.message).toMatch(/SVC Messaging login failed \(HTTP 401 UNAUTHORIZED\): check the email and password/);
		// Tried once: repeating a refused login only risks locking the account.
		expect(requests(emu, 'POST', '/api/auth/login').map((r) => r.status)).toEqual([401]);
		expect(JSON.stringify(error)).not.toContain('not-the-password');
		expect(requests(emu, 'GET', '/api/account/balance')).toHaveLength(0);
	});
});

describe('token expiry', () => {
	it('a rejected token makes n8n log in again (preAuthentication with expired=true) and the call succeeds', async () => {
		const token = await login();
		emu.control.expireTokens();
		emu.control.clearRequests();
		const before = credentialsHelper.calls.length;
		const item = await balance({ accessToken: token });
		expect(item.json.credits).toBe(1000);
		const logins = credentialsHelper.calls.slice(before).filter((c) => c.method === 'preAuthentication');
		expect(logins).toEqual([{ method: 'preAuthentication', type: 'svcMessagingAccountApi', expired: true }]);
		expect(requests(emu).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'GET /api/account/balance 401',
			'POST /api/auth/login 200',
			'GET /api/account/balance 200',
		]);
		expect(JSON.stringify(item.json)).not.toContain(token);
	});

	it('works the same for campaign operations (Create, then Get Many after expiry)', async () => {
		const token = await login();
		const [created] = await run(emu.url, { operation: 'create', name: 'Re-login', message: 'hi', senderIdText: 'SVCTEST', recipientsSource: 'list', phoneNumbers: '+254712345678', contactGroupIds: '', options: {} }, [{}], { accessToken: token });
		emu.control.expireTokens();
		emu.control.clearRequests();
		const before = credentialsHelper.calls.length;
		const list = await run(emu.url, { operation: 'getAll', returnAll: true }, [{}], { accessToken: token });
		expect(list.map((o) => o.json.id)).toEqual([created.json.id]);
		expect(credentialsHelper.calls.slice(before).filter((c) => c.method === 'preAuthentication')).toEqual([
			{ method: 'preAuthentication', type: 'svcMessagingAccountApi', expired: true },
		]);
		expect(requests(emu, 'GET', '/api/sms/campaigns').map((r) => r.status)).toEqual([401, 200]);
	});

	it('an empty token logs in first (expired=false) without a 401', async () => {
		const before = credentialsHelper.calls.length;
		await balance();
		expect(credentialsHelper.calls.slice(before).filter((c) => c.method === 'preAuthentication')).toEqual([
			{ method: 'preAuthentication', type: 'svcMessagingAccountApi', expired: false },
		]);
		expect(requests(emu).map((r) => r.status)).toEqual([200, 200]);
	});
});

describe('Campaign → Send Now with "Check Balance Before Sending"', () => {
	const threeRecipients = { phoneNumbers: '+254712345678, +254722000111, +254733000111' };

	it('stops before sending when the balance is too low: needed vs available, nothing charged, still DRAFT', async () => {
		const c = await createCampaign(emu.url, { name: 'Too big', ...threeRecipients });
		emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 2 });
		emu.control.clearRequests();
		const error = await errorOf(run(emu.url, { operation: 'sendNow', campaignId: byId(c.id), balanceCheck: true }));
		expect(error.message).toBe('INSUFFICIENT_CREDITS: this send needs about 3 credits but the account has 2. Nothing was sent.');
		expect(error.description).toContain(`Campaign "Too big" (ID ${String(c.id)}) was not sent and stays DRAFT; nothing was charged.`);
		expect(error.description).toContain('1 credit(s) per recipient (one per SMS segment of the message) × 3 recipient(s)');
		expect(requests(emu, 'POST', `/api/sms/campaigns/${String(c.id)}/send`)).toHaveLength(0);
		expect(credits(emu)).toBe(2);
		expect(emu.control.messages({ campaignId: Number(c.id) })).toHaveLength(0);
		expect((await getCampaign(emu.url, c.id)).status).toBe('DRAFT');
	});

	it('counts segments: a 2-segment message to 3 recipients needs 6 credits', async () => {
		const c = await createCampaign(emu.url, { message: 'y'.repeat(200), ...threeRecipients });
		emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 5 });
		const error = await errorOf(run(emu.url, { operation: 'sendNow', campaignId: byId(c.id), balanceCheck: true }));
		expect(error.message).toContain('needs about 6 credits but the account has 5');
		expect(credits(emu)).toBe(5);
	});

	it('sends when the balance is enough, and the charge matches the estimate', async () => {
		const c = await createCampaign(emu.url, threeRecipients);
		emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 3 });
		const [sent] = await run(emu.url, { operation: 'sendNow', campaignId: byId(c.id), balanceCheck: true });
		expect(sent.json).toMatchObject({ status: 'SENDING', cost: 3 });
		expect(credits(emu)).toBe(0);
	});

	it('without the check, the service refuses with 402 INSUFFICIENT_CREDITS and charges nothing', async () => {
		const c = await createCampaign(emu.url, threeRecipients);
		emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 1 });
		const error = await errorOf(run(emu.url, { operation: 'sendNow', campaignId: byId(c.id) }));
		expect(error.message).toMatch(/INSUFFICIENT_CREDITS/);
		expect(error.httpCode).toBe('402');
		expect(credits(emu)).toBe(1);
		expect((await getCampaign(emu.url, c.id)).status).toBe('DRAFT');
	});
});
