import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { apiKeyCredentials, noSender, SEED_KEYS, sendParameters, sent } from './fixtures';

/**
 * The SMS field rules over real HTTP: each refused value is refused before any request (counted at
 * the emulator), a valid neighbour still goes out, and the error names the item, the field, the
 * value and the rule.
 */
const emu = useEmulator();

const PHONE = '+254712345678';
const sendOne = (extra: Record<string, unknown>, typeVersion = 2) =>
	executeNode({ parameters: sendParameters(extra), credentials: apiKeyCredentials(emu.url), typeVersion }, [{ phone: PHONE }]);
const errorOf = async (run: Promise<unknown>) => (await run.then(() => undefined, (e: Error & { description?: string; context?: Record<string, unknown> }) => e))!;

describe('Scheduled Time: every format gets the calendar check, years up to 9999', () => {
	it.each([
		['Feb 30 2031 10:00 +0300', 'must be a date that exists'],
		['31 June 2031 10:00Z', 'must be a date that exists'],
		['2031/02/30 10:00Z', 'must be a date that exists'],
		['02/30/2031 10:00 +0300', 'must be a date that exists'],
		['Feb 28 2031 24:30 +0300', 'must be a date'],
		['+010000-01-01T00:00:00Z', 'must be in a year from 0 to 9999'],
		['10000-01-01T00:00:00Z', 'must be in a year from 0 to 9999'],
	])('refuses %s and sends nothing', async (scheduledAt, rule) => {
		const error = await errorOf(sendOne({ options: { scheduledAt } }));
		expect(error.message).toMatch(new RegExp(`^Item 0: "Scheduled Time" ${rule}`));
		expect(error.message).toContain(`(got ${JSON.stringify(scheduledAt)})`);
		expect(sent(emu)).toHaveLength(0);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it.each([
		['Feb 28 2031 10:00 +0300', '2031-02-28T07:00:00.000Z'],
		['29 February 2032 10:00Z', '2032-02-29T10:00:00.000Z'],
		['9999-12-31T10:00:00Z', '9999-12-31T10:00:00.000Z'],
	])('still schedules the real date %s', async (scheduledAt, utc) => {
		const [[out]] = await sendOne({ options: { scheduledAt } });
		expect(out.json).toMatchObject({ accepted: true, scheduledAt: utc });
		expect(emu.control.messages().map((m) => m.scheduledAt)).toEqual([utc]);
	});
});

describe('Send Bulk: a placeholder value is text or a finite number', () => {
	const bulk = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'allFields', message: 'Hi {{name}}', senderId: noSender, options: {} };

	it.each([
		[NaN, 'NaN (not a finite number)'],
		[Infinity, 'Infinity (not a finite number)'],
		[true, 'a boolean (true)'],
		[false, 'a boolean (false)'],
		[null, 'empty (null)'],
		[{ first: 'Amina' }, 'an object'],
		[['Amina'], 'a list'],
	])('refuses %p, naming the item and the placeholder, and sends nothing', async (value, kind) => {
		const items = [{ phone: PHONE, name: 'Juma' }, { phone: '+254712345679', name: value }];
		const error = await errorOf(executeNode({ parameters: bulk, credentials: apiKeyCredentials(emu.url) }, items));
		expect(error.message).toBe(`Item 1: the value of placeholder {{name}} must be text or a number, not ${kind}`);
		expect(sent(emu)).toHaveLength(0);
	});

	it('names the recipient of a list', async () => {
		const people = [{ phoneNumber: PHONE, variables: { name: 'Ok' } }, { phoneNumber: '+254712345679', variables: { name: false } }];
		const parameters = { ...bulk, recipientsSource: 'list', recipients: '={{ $json.people }}' };
		const error = await errorOf(executeNode({ parameters, credentials: apiKeyCredentials(emu.url) }, [{ people }]));
		expect(error.message).toBe('Item 0: recipient 1: the value of placeholder {{name}} must be text or a number, not a boolean (false)');
		expect(sent(emu)).toHaveLength(0);
	});

	it('numbers stay valid and are sent as their digits', async () => {
		await executeNode({ parameters: bulk, credentials: apiKeyCredentials(emu.url) }, [{ phone: PHONE, name: 42 }, { phone: '+254712345679', name: 0.5 }]);
		expect(emu.control.messages().map((m) => m.message)).toEqual(['Hi 42', 'Hi 0.5']);
	});
});

describe('text must be well-formed (no lone UTF-16 surrogate)', () => {
	it.each([['Hi \uD83D'], ['\uDE00 there'], ['a\uD83D\uD83Db']])('refuses %p in Send and sends nothing', async (message) => {
		const error = await errorOf(sendOne({ message }));
		expect(error.message).toMatch(/^Item 0: "Message" must be well-formed text: character \d+ is half of an emoji/);
		expect(sent(emu)).toHaveLength(0);
	});

	it('a whole emoji still goes out', async () => {
		await sendOne({ message: 'Hi 😀' });
		expect(emu.control.messages().map((m) => m.message)).toEqual(['Hi 😀']);
	});

	it('refuses a Send Bulk placeholder value with a lone surrogate', async () => {
		const parameters = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'allFields', message: 'Hi {{name}}', senderId: noSender, options: {} };
		const error = await errorOf(executeNode({ parameters, credentials: apiKeyCredentials(emu.url) }, [{ phone: PHONE, name: 'Amina \uD83D' }]));
		expect(error.message).toMatch(/^Item 0: the value of placeholder \{\{name\}\} must be well-formed text/);
		expect(sent(emu)).toHaveLength(0);
	});
});

describe('Delivery Report URL: bounded, and a host the service can reach', () => {
	it.each([
		['http://localhost:5678/webhook-test/abc/svc-messaging', 'localhost names this machine'],
		['http://127.0.0.1:5678/webhook/abc/svc-messaging', '127.0.0.1 is a loopback address'],
		['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
		['http://10.1.2.3/hook', '10.1.2.3 is a private address'],
		['http://[::1]:5678/hook', '::1 is a loopback address'],
	])('refuses %s, says to set WEBHOOK_URL, sends nothing', async (webhookUrl, why) => {
		const error = await errorOf(sendOne({ options: { webhookUrl } }));
		expect(error.message).toContain(`Item 0: "Delivery Report URL" must be an address the service can reach from the internet: ${why}`);
		expect(error.message).toContain("Set n8n's WEBHOOK_URL to n8n's public address");
		expect(error.message).toContain('"Allow Private Delivery Report Hosts"');
		expect(sent(emu)).toHaveLength(0);
	});

	it('"Allow Private Delivery Report Hosts" lets a private host through', async () => {
		await sendOne({ options: { webhookUrl: 'http://10.1.2.3/hook', allowPrivateReportHosts: true } });
		expect(emu.control.messages().map((m) => m.webhookUrl)).toEqual(['http://10.1.2.3/hook']);
	});

	it('refuses a URL over 2,048 characters; 2,048 goes out', async () => {
		const base = 'https://hooks.example.com/';
		const error = await errorOf(sendOne({ options: { webhookUrl: base + 'u'.repeat(100_000) } }));
		expect(error.message).toMatch(/^Item 0: "Delivery Report URL" must be at most 2048 characters \(it has 100026\) \(got "https:\/\/hooks\.example\.com\/u+…"\)$/);
		expect(sent(emu)).toHaveLength(0);
		await sendOne({ options: { webhookUrl: base + 'u'.repeat(2048 - base.length) } });
		expect(emu.control.messages()).toHaveLength(1);
	});

	it('never quotes what could be a token: the query and user info of a link', async () => {
		const error = await errorOf(sendOne({ options: { webhookUrl: 'http://user:s3cret@localhost/hook?svcWait=abcdef0123456789' } }));
		expect(error.message).toContain('(got "http://…@localhost/hook?…")');
		expect(error.message).not.toMatch(/s3cret|abcdef0123456789/);
	});
});

describe('error texts', () => {
	it('a refused phone number is quoted, so the row can be found', async () => {
		const error = await errorOf(executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: PHONE }, { phone: '0712 34' }]));
		expect(error.message).toBe('Item 1: "Phone Number" must be in E.164 format (+ and country code), or set Default Country for national numbers (got "0712 34")');
		expect(sent(emu)).toHaveLength(0);
	});

	it('a summary of several items: one line per item, each item named once, no item tag on the summary', async () => {
		const items = [{ phone: PHONE }, { phone: '+2547123' }, { phone: '+254712345679' }, { phone: '+25471234567890' }];
		const error = await errorOf(
			executeNode({ parameters: sendParameters({ options: { numberCheck: 'format' } }), credentials: apiKeyCredentials(emu.url), typeVersion: 2 }, items),
		);
		expect(error.message).toBe('2 message(s) were not accepted (items 1, 3); 2 were accepted');
		expect(error.context?.itemIndex).toBeUndefined();
		const lines = error.description!.split('\n\n')[0].split('\n');
		expect(lines).toEqual([expect.stringMatching(/^item 1: The service refused the phone number: \S/), expect.stringMatching(/^item 3: The service refused the phone number: \S/)]);
		expect(error.description).not.toMatch(/Item \d+:/);
		expect(emu.control.messages()).toHaveLength(2);
	});

	it("one call's error shared by several items names them all, not Item 0", async () => {
		const parameters = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'none', message: 'x', senderId: noSender, options: {} };
		const error = await errorOf(
			executeNode({ parameters, credentials: apiKeyCredentials(emu.url, { apiKey: SEED_KEYS.broke, plan: 'free' }), typeVersion: 2 }, [{ phone: PHONE }, { phone: '+254712345679' }, { phone: '+254712345670' }]),
		);
		expect(error.message).toBe('Items 0, 1, 2: Not enough credits on the account');
		expect(emu.control.messages()).toHaveLength(0);
	});
});
