/**
 * The do-not-send list over real HTTP against the emulator: numbers handed over in "Do-Not-Send
 * List → Numbers" (read once per run) and the list in the credential's shared Redis (a real
 * redis-server; the Do-Not-Send List resource edits it). A listed number is never posted: the
 * emulator's messages are counted; its item ends on the output as suppressed, not as an error.
 */
import type { IDataObject } from 'n8n-workflow';

import { RedisConstructor } from '../../nodes/SvcMessaging/transport/redis';
import { bothCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, executeNodeWithHints } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { OPTED_IN, OPTED_IN_2 } from '../chat/helpers';
import { apiKeyCredentials, sendBulkParameters, sendParameters, sent } from '../sms/fixtures';

const emu = useEmulator();
const redis = useRedis();

const A = '+254712345601';
const B = '+254712345602';
const C = '+254712345603';
const listOf = (numbers: unknown) => ({ doNotSend: { list: { numbers } } });
const sentTo = () => emu.control.messages().map((m) => m.phoneNumber);

let prefix = 0;
/** A credential with the shared Redis, under a prefix of its own (one list per test). */
const withRedis = () => apiKeyCredentials(emu.url, { redis: { port: redis.port, prefix: `dns-test-${++prefix}` } });

const listOp = async (credentials: ReturnType<typeof withRedis>, operation: string, items: IDataObject[], options = {}) =>
	(await executeNode({ parameters: { resource: 'doNotSendList', operation, phoneNumber: '={{ $json.phone }}', options }, credentials }, items))[0].map((i) => i.json);

describe('Do-Not-Send List → Numbers (handed over by the workflow)', () => {
	it('SMS → Send: a listed number is never posted; its item is output as suppressed, with the reason, paired', async () => {
		const { output, hints } = await executeNodeWithHints({ parameters: sendParameters(listOf(`${B}, ${C}`)), credentials: apiKeyCredentials(emu.url) }, [
			{ phone: A },
			{ phone: B },
		]);
		expect(sentTo()).toEqual([A]);
		expect(output[0][1]).toEqual({
			json: expect.objectContaining({ accepted: false, sent: false, suppressed: true, phoneNumber: B, reason: 'The number is on the do-not-send list (Do-Not-Send List → Numbers)' }),
			pairedItem: { item: 1 },
		});
		expect(output[0][1].json.credits).toBeUndefined();
		expect(output[0][0].json).toMatchObject({ accepted: true, phoneNumber: A });
		expect(hints).toContain('1 message was not sent: the number is on the do-not-send list (suppressed: true in the output).');
	});

	it('0712… in the list (Default Country Kenya) and +254712… as the recipient are one number', async () => {
		const out = (await executeNode({ parameters: sendParameters({ ...listOf('0712 345 601'), options: { defaultCountry: 'KE' } }), credentials: apiKeyCredentials(emu.url) }, [{ phone: A }, { phone: '0712345602' }]))[0];
		expect(sentTo()).toEqual([B]);
		expect(out.map((i) => i.json.suppressed ?? false)).toEqual([true, false]);
	});

	it('read once, from the first item: an array mapped by an expression (as from a Data Table) applies to every item', async () => {
		const out = (
			await executeNode({ parameters: sendParameters(listOf('={{ $json.optOuts }}')), credentials: apiKeyCredentials(emu.url) }, [
				{ phone: A, optOuts: [C] },
				{ phone: C, optOuts: [] },
			])
		)[0];
		expect(sentTo()).toEqual([A]);
		expect(out[1].json).toMatchObject({ suppressed: true, phoneNumber: C });
	});

	it('SMS → Send Bulk: 30 recipients, 10 listed: 20 posted in the calls, 10 suppressed, in input order', async () => {
		const numbers = Array.from({ length: 30 }, (_, n) => `+2547123456${String(n + 10)}`);
		const listed = numbers.filter((_, n) => n % 3 === 0);
		const out = (
			await executeNode(
				{ parameters: sendBulkParameters(listOf(listed.join('\n'))), credentials: apiKeyCredentials(emu.url) },
				numbers.map((phone, n) => ({ phone, name: `n${n}` })),
			)
		)[0];
		expect(sentTo().sort()).toEqual(numbers.filter((n) => !listed.includes(n)).sort());
		expect(out.map((i) => i.json.phoneNumber)).toEqual(numbers);
		expect(out.filter((i) => i.json.suppressed).map((i) => i.json.phoneNumber)).toEqual(listed);
		expect(out.map((i) => i.pairedItem)).toEqual(numbers.map((_, item) => ({ item })));
	});

	it('SMS → Send and Wait: the suppressed item leaves on "Not Delivered", not waited for; the other is delivered', async () => {
		const outputs = await executeNode(
			{ parameters: sendParameters({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30, ...listOf(B) }), credentials: apiKeyCredentials(emu.url) },
			[{ phone: A }, { phone: B }],
		);
		expect(sentTo()).toEqual([A]);
		expect(outputs[0].map((i) => i.json.phoneNumber)).toEqual([A]);
		expect(outputs[1].map((i) => [i.json.phoneNumber, i.json.suppressed, i.pairedItem])).toEqual([[B, true, { item: 1 }]]);
	});

	it('Chat Message → Send: a listed number is suppressed too', async () => {
		const out = (
			await executeNode(
				{
					parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Hi', options: {}, ...listOf([OPTED_IN_2]) },
					credentials: apiKeyCredentials(emu.url),
				},
				[{ phone: OPTED_IN }, { phone: OPTED_IN_2 }],
			)
		)[0];
		expect(emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/messages')).toHaveLength(1);
		expect(out[1].json).toMatchObject({ suppressed: true, phoneNumber: OPTED_IN_2 });
	});

	it('Dry Run shows the suppressed items as such (dryRun: true) and prices only the rest; 0 requests', async () => {
		const { output, hints } = await executeNodeWithHints({ parameters: sendParameters({ ...listOf(B), options: { dryRun: true } }), credentials: apiKeyCredentials(emu.url) }, [
			{ phone: A },
			{ phone: B },
		]);
		expect(sent(emu)).toHaveLength(0);
		expect(output[0].map((i) => [i.json.suppressed ?? false, i.json.dryRun])).toEqual([
			[false, true],
			[true, true],
		]);
		expect(hints.some((h) => h.startsWith('Dry run: nothing was sent. 1 message would be sent'))).toBe(true);
	});

	it('an entry that is not a phone number refuses the send before any request, naming the entry and the value', async () => {
		await expect(
			executeNode({ parameters: sendParameters(listOf(`${B}\nnot a number`)), credentials: apiKeyCredentials(emu.url) }, [{ phone: A }]),
		).rejects.toThrow('Item 0: "Do-Not-Send List → Numbers" entry 2 must hold only the phone number');
		await expect(executeNode({ parameters: sendParameters(listOf('0712345601')), credentials: apiKeyCredentials(emu.url) }, [{ phone: A }])).rejects.toThrow(
			/entry 1 must be in E\.164 format.*\(got "0712345601"\)/,
		);
		expect(emu.control.requests()).toHaveLength(0);
	});
});

describe('Campaign → Create (version 2): listed manual numbers are taken out', () => {
	const createCampaign = async (phoneNumbers: string, numbers: string, contactGroupIds = '', credentials = bothCredentials(emu.url)) =>
		(
			await executeNode(
				{
					parameters: {
						resource: 'campaign',
						operation: 'create',
						name: 'Offer',
						message: 'ACME: 20% off',
						senderId: { __rl: true, mode: 'id', value: 'ACMEKE' },
						recipientsSource: 'list',
						phoneNumbers,
						contactGroupIds,
						options: {},
						...listOf(numbers),
					},
					credentials,
					typeVersion: 2,
				},
				[{}],
			)
		)[0][0].json;
	const stored = () => [...emu.state.campaigns.values()];

	it('one of two numbers listed: the campaign goes to the other; the output names the one taken out', async () => {
		const out = await createCampaign(`${A}, ${B}`, B);
		expect(stored().map((c) => c.manualNumbers)).toEqual([[A]]);
		expect(out).toMatchObject({ totalRecipients: 1, suppressedNumbers: [B] });
	});

	it("the API key credential's Redis list counts too: its number is taken out, beside the Numbers field's", async () => {
		const redisKey = withRedis();
		await listOp(redisKey, 'add', [{ phone: A }]);
		const credentials = { ...bothCredentials(emu.url), ...redisKey };
		const out = await createCampaign(`${A}, ${B}, ${C}`, C, '', credentials);
		expect(stored().map((c) => c.manualNumbers)).toEqual([[B]]);
		expect(out).toMatchObject({ totalRecipients: 1 });
		expect([...(out.suppressedNumbers as string[])].sort()).toEqual([A, C]);
	});

	it('every number listed and no contact groups: no campaign is created; the item says why', async () => {
		const out = await createCampaign(`${A}, ${B}`, `${A}\n${B}`);
		expect(stored()).toHaveLength(0);
		expect(out).toMatchObject({ created: false, suppressed: true, suppressedNumbers: [A, B], reason: 'Every number is on the do-not-send list' });
	});
});

describe("the credential's Redis list (Do-Not-Send List resource)", () => {
	it('Add, Check, Get Many and Remove keep E.164 numbers: 0712… and +254712… are one entry', async () => {
		const credentials = withRedis();
		expect(await listOp(credentials, 'add', [{ phone: '0712345601' }, { phone: A }, { phone: B }], { defaultCountry: 'KE' })).toEqual([
			{ phoneNumber: A, onDoNotSendList: true, added: true },
			{ phoneNumber: A, onDoNotSendList: true, added: false },
			{ phoneNumber: B, onDoNotSendList: true, added: true },
		]);
		expect(await listOp(credentials, 'check', [{ phone: A }, { phone: C }])).toEqual([
			{ phoneNumber: A, onDoNotSendList: true },
			{ phoneNumber: C, onDoNotSendList: false },
		]);
		const all = (await executeNode({ parameters: { resource: 'doNotSendList', operation: 'getAll', returnAll: true }, credentials }))[0];
		expect(all.map((i) => i.json.phoneNumber).sort()).toEqual([A, B]);
		expect(await listOp(credentials, 'remove', [{ phone: A }, { phone: C }])).toEqual([
			{ phoneNumber: A, onDoNotSendList: false, removed: true },
			{ phoneNumber: C, onDoNotSendList: false, removed: false },
		]);
		expect(emu.control.requests()).toHaveLength(0);
	});

	it('an entry cut short (+2547123) is refused like a recipient, in the Numbers field and in the list resource; nothing sent, nothing listed', async () => {
		await expect(executeNode({ parameters: sendParameters(listOf(`${B}, +2547123`)), credentials: apiKeyCredentials(emu.url) }, [{ phone: A }])).rejects.toThrow(
			'Item 0: "Do-Not-Send List → Numbers" entry 2 is not a complete phone number (too short or too long for its country code) (got "+2547123")',
		);
		const credentials = withRedis();
		await expect(listOp(credentials, 'add', [{ phone: '+2547123' }])).rejects.toThrow('Item 0: "Phone Number" is not a complete phone number');
		const all = (await executeNode({ parameters: { resource: 'doNotSendList', operation: 'getAll', returnAll: true }, credentials }))[0];
		expect(all.map((i) => i.json.phoneNumber)).not.toContain('+2547123');
		expect(emu.control.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('a bad number is refused per item, naming the field and the value; Continue On Fail outputs it as an error item', async () => {
		const out = (
			await executeNode(
				{ parameters: { resource: 'doNotSendList', operation: 'add', phoneNumber: '={{ $json.phone }}', options: {} }, credentials: withRedis(), settings: { onError: 'continueRegularOutput' } },
				[{ phone: 'call me' }, { phone: A }],
			)
		)[0];
		expect(out[0].json.error).toBe('Item 0: "Phone Number" must hold only the phone number: digits with an optional leading + or 00 (spaces, dashes, dots, brackets and "tel:" may stay), no other text (got "call me")');
		expect(out[1].json).toMatchObject({ phoneNumber: A, added: true });
	});

	it('without a shared Redis the resource says where the list lives', async () => {
		await expect(listOp(apiKeyCredentials(emu.url), 'check', [{ phone: A }])).rejects.toThrow("The do-not-send list is kept in the credential's shared Redis, and this credential has none");
	});

	it('Check with a Redis that cannot be reached: says to check that Redis, never to turn the credential\'s Redis off (the list lives there)', async () => {
		const credentials = apiKeyCredentials(emu.url, { redis: { port: 1, prefix: 'dns-gone' } });
		const error = (await listOp(credentials, 'check', [{ phone: A }]).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toContain('Could not connect to Redis at 127.0.0.1:1');
		expect(error.description).toContain('Check that this Redis is running and reachable, and the Redis settings in the SVC Messaging API credential → "Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)"');
		expect(error.description).not.toMatch(/turn .*off/i);
	});

	it('every send with the credential checks it: SMS → Send and Send Bulk post nothing to a listed number', async () => {
		const credentials = withRedis();
		await listOp(credentials, 'add', [{ phone: B }]);
		const single = (await executeNode({ parameters: sendParameters(), credentials }, [{ phone: A }, { phone: B }]))[0];
		expect(single[1].json).toMatchObject({ suppressed: true, reason: "The number is on the do-not-send list (the credential's Redis)" });
		const bulk = (await executeNode({ parameters: sendBulkParameters(), credentials }, [{ phone: B, name: 'b' }, { phone: C, name: 'c' }]))[0];
		expect(bulk.map((i) => i.json.suppressed ?? false)).toEqual([true, false]);
		expect(sentTo().sort()).toEqual([A, C]);
	});

	it('Send Bulk of 2,500 recipients asks Redis in batches: 3 SMISMEMBER calls, the 5 listed never posted', async () => {
		const credentials = withRedis();
		const numbers = Array.from({ length: 2_500 }, (_, n) => `+2547${String(10_000_000 + n)}`);
		const listed = [numbers[0], numbers[999], numbers[1_000], numbers[2_001], numbers[2_499]];
		await listOp(credentials, 'add', listed.map((phone) => ({ phone })));
		emu.state.accounts.get('acc_demo')!.credits = 10_000;
		const client = new RedisConstructor({ port: redis.port, host: '127.0.0.1' });
		await client.config('RESETSTAT');
		const out = (await executeNode({ parameters: sendBulkParameters(), credentials }, numbers.map((phone) => ({ phone, name: 'x' }))))[0];
		const stats = String(await client.info('commandstats'));
		client.disconnect();
		expect(/cmdstat_smismember:calls=(\d+)/.exec(stats)?.[1]).toBe('3');
		expect(out.filter((i) => i.json.suppressed).map((i) => i.json.phoneNumber)).toEqual(listed);
		const posted = new Set(sentTo());
		expect(posted.size).toBe(2_495);
		for (const number of listed) expect(posted.has(number)).toBe(false);
	});

	it('a Redis that cannot be reached lets nothing out: the items fail unsent (Continue On Fail), 0 posts', async () => {
		const credentials = apiKeyCredentials(emu.url, { redis: { port: 1, prefix: 'dns-gone' } });
		const out = (await executeNode({ parameters: sendParameters(), credentials, settings: { onError: 'continueRegularOutput' } }, [{ phone: A }]))[0];
		expect(out[0].json).toMatchObject({ accepted: false, errorCode: 'REDIS_UNAVAILABLE', errorMessage: expect.stringContaining('for the do-not-send list') });
		expect(sent(emu)).toHaveLength(0);
	});
});
