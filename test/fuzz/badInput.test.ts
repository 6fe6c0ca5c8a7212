import type { IDataObject } from 'n8n-workflow';

import { SEED_LOGINS } from '../emulator';
import { accountCredentials, apiKeyCredentials, type TestCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';

/**
 * Every operation × a table of bad values, fed the way they reach a real workflow (an expression
 * over the input item): each must be refused before any request, with an error that names the
 * item and the field. The suite prints `bad inputs: N tried, 0 sent`.
 */
const emu = useEmulator();
const tried: string[] = [];
const leaked: string[] = [];

afterAll(async () => {
	process.stdout.write(`\nbad inputs: ${tried.length} tried, ${leaked.length} sent\n`);
});

const PHONE = '+254712345678';
const BAD = '={{ $json.bad }}';
/** Options → Idempotency Key and Remember Key For (Hours): refused before any request. */
const IDEMPOTENCY_KEYS: unknown[] = ['', '   ', '\u200b', 'k'.repeat(501), 'order-{{ $json.id }}', { id: 1 }, [1]];
const KEY_HOURS: unknown[] = [0, 73, -1, 'a day', { h: 1 }];
const rl = (value: string, mode = 'id') => ({ __rl: true, mode, value });
const apiKey = () => apiKeyCredentials(emu.url);
const account = () => accountCredentials(emu.url);

const HUGE = 'x'.repeat(100_000);
const ZERO_WIDTH = '\u200B\u200C\u200D\uFEFF';
const DIRECTION = '\u200E\u200F\u202A\u202C\u2066\u2069';
const OBJECT = { a: 1 };
const LIST = [1, 2];

const LONE_SURROGATES = ['Hi \uD83D', '\uDE00 there', 'a\uD83D\uD83Db'];
const TEXT = ['', '   ', ZERO_WIDTH, DIRECTION, OBJECT, LIST, HUGE, ...LONE_SURROGATES];
const PATH_ID = ['', '  ', '.', '..', OBJECT, LIST, 'a\u0000b', '9'.repeat(100_000), 'x'.repeat(129)];
/** Template names are up to 512 characters (the platform's naming rule); past that, refused like any path ID. */
const TEMPLATE_NAME = [...PATH_ID.slice(0, -1), 'x'.repeat(513), 'otp\uD83D'];
const CAMPAIGN_ID = ['', '.', '..', 'abc', '0', '-1', '1.5', '9'.repeat(16), '9'.repeat(100_000), OBJECT, LIST];
const FUTURE_TIME = [
	'2030-02-30T10:00',
	'2030-13-45T99:99',
	'2030-04-31T08:00',
	'2001-01-01T10:00',
	'tomorrow',
	OBJECT,
	'Feb 30 2031 10:00 +0300',
	'31 June 2031 10:00Z',
	'2031/02/30 10:00Z',
	'Feb 28 2031 24:30 +0300',
	'+010000-01-01T00:00:00Z',
	'10000-01-01T00:00:00Z',
];
/** A number inside other text (a mapped notes column) would text whoever it mentions. */
const PHONE_NUMBERS = ['', '   ', 'abc', '123', '+1', OBJECT, LIST, HUGE, 'Call +254712345678 now', '📞+254712345678', 'abc+254712345678def', '+254712345678 (Amina)'];
/** An opt-out read wrongly would let a message out: a list entry that is not a number refuses the send. */
const DO_NOT_SEND_NUMBERS = ['abc', '0712345678', '+1', '+2547123', OBJECT, [OBJECT], LIST, 'Call +254712345678 now', '+254712345678\nnot a number'];
const URLS = [
	'not a url',
	'ftp://example.com/x',
	'javascript:alert(1)',
	OBJECT,
	`https://hooks.example.com/${'u'.repeat(100_000)}`,
	'http://localhost:5678/webhook-test/abc/svc-messaging',
	'http://127.0.0.1:5678/webhook/abc',
	'http://169.254.169.254/latest/meta-data',
	'http://10.0.0.5/hook',
	'http://[::1]:5678/hook',
];
const MEDIA = ['', 'http://cdn.example.com/a.png', 'https://cdn.example.com/a.exe', OBJECT, LIST, `https://cdn.example.com/${'m'.repeat(100_000)}.png`];
/** Send Bulk placeholder values that would be sent as "NaN", "true", … */
const PLACEHOLDER_VALUES = [NaN, Infinity, -Infinity, true, false, null, OBJECT, LIST, 'Amina \uD83D'];
const junk = (depth: number): unknown => (depth === 0 ? 'x' : { nested: junk(depth - 1) });
/** Template structures the platform's review rejects. */
const COMPONENTS = [
	[{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}} for {{2}}' }, { type: 'BODY', text: 'Hi {{1}}, thanks.' }],
	[{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'FOOTER', text: 'Code {{1}} inside' }],
	[{ type: 'BODY', text: '{{1}} is your code.' }],
	[{ type: 'BODY', text: 'Your code is {{1}}' }],
	[{ type: 'BODY', text: 'Hi {{1}}, thanks.', example: junk(50) }],
	[{ type: 'BODY', text: { deep: junk(20) } }],
	[{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Ok', payload: junk(10) }] }],
	[{ type: 'BODY', text: 'Hi {{1}}, thanks.' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Go', url: `https://example.com/${'u'.repeat(3000)}` }] }],
];

interface Case {
	operation: string;
	field: string;
	values: unknown[];
	parameters: IDataObject;
	credentials: () => TestCredentials;
	/** the item, with the bad value under `bad` */
	item?: (bad: unknown) => Record<string, unknown>;
	/** what the error must name, when not `"Field` */
	names?: string;
}

const sms = (operation: string, extra: IDataObject): IDataObject => ({
	resource: 'sms',
	operation,
	phoneNumber: PHONE,
	message: 'Your code is 123456',
	senderId: rl('', 'list'),
	options: {},
	...extra,
});
const bulk = (extra: IDataObject): IDataObject =>
	sms('sendBulk', { recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'allFields', ...extra });
const chat = (extra: IDataObject): IDataObject => ({
	resource: 'chatMessage',
	operation: 'send',
	phoneNumber: PHONE,
	messageType: 'text',
	text: 'Hello',
	options: {},
	...extra,
});
const campaign = (operation: string, extra: IDataObject): IDataObject => ({ resource: 'campaign', operation, ...extra });
const createCampaign = (extra: IDataObject): IDataObject =>
	campaign('create', {
		name: 'March promotion',
		message: 'Hello from ACME',
		senderIdText: 'ACMEKE',
		recipientsSource: 'list',
		phoneNumbers: PHONE,
		contactGroupIds: '',
		options: {},
		...extra,
	});

const CASES: Case[] = [
	{ operation: 'SMS → Send', field: 'Phone Number', values: PHONE_NUMBERS, parameters: sms('send', { phoneNumber: BAD }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Message', values: TEXT, parameters: sms('send', { message: BAD }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Sender ID', values: ['my shop', 'TOOLONGSENDER1', 'ACME-KE', OBJECT], parameters: sms('send', { senderId: rl(BAD) }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Reference', values: ['r'.repeat(101), OBJECT, LIST], parameters: sms('send', { options: { reference: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Delivery Report URL', values: URLS, parameters: sms('send', { options: { webhookUrl: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Scheduled Time', values: FUTURE_TIME, parameters: sms('send', { options: { scheduledAt: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Max Credits', values: [-1, 'lots', OBJECT, LIST, NaN], parameters: sms('send', { options: { maxCredits: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Idempotency Key', values: IDEMPOTENCY_KEYS, parameters: sms('send', { options: { idempotencyKey: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send', field: 'Remember Key For (Hours)', values: KEY_HOURS, parameters: sms('send', { options: { idempotencyKey: 'order-1', rememberKeyHours: BAD } }), credentials: apiKey },
	{ operation: 'SMS → Send Bulk', field: 'Idempotency Key', values: IDEMPOTENCY_KEYS, parameters: bulk({ options: { idempotencyKey: BAD } }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'Chat Message → Send', field: 'Idempotency Key', values: IDEMPOTENCY_KEYS, parameters: chat({ options: { idempotencyKey: BAD } }), credentials: apiKey },
	{ operation: 'Campaign → Create', field: 'Remember Key For (Hours)', values: KEY_HOURS, parameters: createCampaign({ options: { idempotencyKey: 'march-1', rememberKeyHours: BAD } }), credentials: account },
	{
		operation: 'SMS → Send',
		field: 'Allowed From',
		values: ['8:00', '24:00', 'noon', '', OBJECT],
		parameters: sms('send', { options: { sendingHours: { hours: { from: BAD, until: '20:00', outside: 'schedule' } } } }),
		credentials: apiKey,
	},
	{
		operation: 'Chat Message → Send',
		field: 'Time Zone',
		values: ['Mars/Olympus', 'Etc/Nowhere', 'Nairobi', 'EAT', OBJECT],
		parameters: chat({ phoneNumber: '+447700900123', options: { sendingHours: { hours: { from: '08:00', until: '20:00', outside: 'skip', timeZone: BAD } } } }),
		credentials: apiKey,
	},
	...(['send', 'sendAndWaitForDelivery'] as const).map(
		(operation): Case => ({
			operation: `SMS → ${operation}`,
			field: 'Do-Not-Send List → Numbers',
			values: DO_NOT_SEND_NUMBERS,
			parameters: sms(operation, { waitMode: 'polling', doNotSend: { list: { numbers: BAD } } }),
			credentials: apiKey,
		}),
	),
	{ operation: 'SMS → Send Bulk', field: 'Do-Not-Send List → Numbers', values: DO_NOT_SEND_NUMBERS, parameters: bulk({ doNotSend: { list: { numbers: BAD } } }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'Chat Message → Send', field: 'Do-Not-Send List → Numbers', values: DO_NOT_SEND_NUMBERS, parameters: chat({ doNotSend: { list: { numbers: BAD } } }), credentials: apiKey },
	...['add', 'remove', 'check'].map(
		(operation): Case => ({
			operation: `Do-Not-Send List → ${operation}`,
			field: 'Phone Number',
			values: PHONE_NUMBERS,
			parameters: { resource: 'doNotSendList', operation, phoneNumber: BAD, options: {} },
			credentials: apiKey,
		}),
	),
	{ operation: 'SMS → Send and Wait', field: 'Message', values: TEXT, parameters: sms('sendAndWaitForDelivery', { message: BAD, waitMode: 'polling' }), credentials: apiKey },
	{ operation: 'SMS → Send and Wait', field: 'Phone Number', values: PHONE_NUMBERS, parameters: sms('sendAndWaitForDelivery', { phoneNumber: BAD, waitMode: 'polling' }), credentials: apiKey },
	{ operation: 'SMS → Send Bulk', field: 'Message', values: TEXT, parameters: bulk({ message: BAD }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'SMS → Send Bulk', field: 'Reference', values: ['r'.repeat(101), OBJECT], parameters: bulk({ options: { reference: BAD } }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'SMS → Send Bulk', field: 'Scheduled Time', values: FUTURE_TIME, parameters: bulk({ options: { scheduledAt: BAD } }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'SMS → Send Bulk', field: 'Max Credits', values: [-5, 'lots'], parameters: bulk({ options: { maxCredits: BAD } }), credentials: apiKey, item: (bad) => ({ bad, phone: PHONE }) },
	{ operation: 'SMS → Send Bulk', field: 'Phone Number', values: PHONE_NUMBERS, parameters: bulk({}), credentials: apiKey, item: (bad) => ({ phone: bad }) },
	{
		operation: 'SMS → Send Bulk',
		field: 'Message',
		values: ['n'.repeat(1600)],
		parameters: bulk({ message: 'Hi {{name}}' }),
		credentials: apiKey,
		item: (bad) => ({ name: bad, phone: PHONE }),
	},
	{
		operation: 'SMS → Send Bulk',
		field: 'Message',
		values: ['   ', ZERO_WIDTH, DIRECTION],
		parameters: bulk({ message: '{{name}}' }),
		credentials: apiKey,
		item: (bad) => ({ name: bad, phone: PHONE }),
	},
	{
		operation: 'SMS → Send Bulk',
		field: 'Message',
		values: PLACEHOLDER_VALUES,
		parameters: bulk({ message: 'Hi {{name}}' }),
		credentials: apiKey,
		item: (bad) => ({ name: bad, phone: PHONE }),
		names: 'placeholder {{name}}',
	},
	{
		operation: 'SMS → Send Bulk (list)',
		field: 'Message',
		values: PLACEHOLDER_VALUES,
		parameters: sms('sendBulk', { recipientsSource: 'list', message: 'Hi {{name}}', recipients: '={{ $json.list }}' }),
		credentials: apiKey,
		item: (bad) => ({ list: [{ phoneNumber: PHONE, variables: { name: 'Ok' } }, { phoneNumber: PHONE, variables: { name: bad } }] }),
		names: 'recipient 1: the value of placeholder {{name}}',
	},
	{ operation: 'SMS → Get Message', field: 'Message ID', values: PATH_ID, parameters: { resource: 'sms', operation: 'getMessage', messageId: BAD }, credentials: apiKey },
	{ operation: 'SMS → Get Batch', field: 'Batch ID', values: PATH_ID, parameters: { resource: 'sms', operation: 'getBatch', batchId: BAD }, credentials: apiKey },
	{
		operation: 'SMS → Get Delivery Rates',
		field: 'Start Date',
		values: ['2030-02-30', '2030-13-01', 'yesterday', OBJECT],
		parameters: { resource: 'sms', operation: 'getDeliveryRates', filters: { startDate: BAD } },
		credentials: apiKey,
	},
	{ operation: 'Chat Message → Send', field: 'Phone Number', values: PHONE_NUMBERS, parameters: chat({ phoneNumber: BAD }), credentials: apiKey },
	{ operation: 'Chat Message → Send', field: 'Text', values: TEXT, parameters: chat({ text: BAD }), credentials: apiKey },
	{ operation: 'Chat Message → Send', field: 'Recipient Type', values: ['everyone', OBJECT], parameters: chat({ recipientType: BAD }), credentials: apiKey },
	{ operation: 'Chat Message → Send', field: 'Media Link', values: MEDIA, parameters: chat({ messageType: 'image', mediaLink: BAD }), credentials: apiKey },
	{
		operation: 'Chat Message → Send',
		field: 'Caption',
		values: ['c'.repeat(1025), OBJECT, LIST],
		parameters: chat({ messageType: 'image', mediaLink: 'https://cdn.example.com/a.png', caption: BAD }),
		credentials: apiKey,
	},
	{
		operation: 'Chat Message → Send',
		field: 'File Name',
		values: ['f'.repeat(241), OBJECT],
		parameters: chat({ messageType: 'document', mediaLink: 'https://cdn.example.com/a.pdf', filename: BAD }),
		credentials: apiKey,
	},
	{ operation: 'Chat Message → Send', field: 'Template', values: TEMPLATE_NAME, parameters: chat({ messageType: 'template', template: rl(BAD) }), credentials: apiKey },
	{
		operation: 'Chat Message → Send',
		field: 'Template Variables',
		values: [OBJECT, LIST],
		parameters: chat({ messageType: 'template', template: rl('otp_code'), templateVariables: { mappingMode: 'defineBelow', value: { body_1: BAD } } }),
		credentials: apiKey,
	},
	{ operation: 'Chat Template → Get', field: 'Template', values: TEMPLATE_NAME, parameters: { resource: 'chatTemplate', operation: 'get', template: rl(BAD) }, credentials: apiKey },
	{ operation: 'Chat Template → Delete', field: 'Template', values: TEMPLATE_NAME, parameters: { resource: 'chatTemplate', operation: 'delete', template: rl(BAD) }, credentials: apiKey },
	{
		operation: 'Chat Template → Create',
		field: 'Name',
		values: ['', '   ', OBJECT, 'n'.repeat(513), 'Bad Name', '../x', 'order🎉', 'Order_Update', 'order-update', 'x\uD83D'],
		parameters: { resource: 'chatTemplate', operation: 'create', templateName: BAD, category: 'UTILITY', language: 'en', componentsSource: 'form', bodyText: 'Hello {{1}}.' },
		credentials: apiKey,
	},
	{
		operation: 'Chat Template → Create',
		field: 'Components (JSON)',
		values: COMPONENTS,
		parameters: { resource: 'chatTemplate', operation: 'create', templateName: 'order_update', category: 'UTILITY', language: 'en', componentsSource: 'json', componentsJson: BAD },
		credentials: apiKey,
		names: 'Template "order_update" breaks',
	},
	...['get', 'delete', 'sendNow', 'cancel'].map(
		(operation): Case => ({ operation: `Campaign → ${operation}`, field: 'Campaign', values: CAMPAIGN_ID, parameters: campaign(operation, { campaignId: rl(BAD) }), credentials: account }),
	),
	{ operation: 'Campaign → Create', field: 'Name', values: ['', '   ', OBJECT, 'n'.repeat(256), HUGE, 'March \uD83D'], parameters: createCampaign({ name: BAD }), credentials: account },
	{ operation: 'Campaign → Create', field: 'Message', values: ['', '   ', 'm'.repeat(1601), OBJECT], parameters: createCampaign({ message: BAD }), credentials: account },
	{ operation: 'Campaign → Create', field: 'Scheduled Time', values: FUTURE_TIME, parameters: createCampaign({ options: { scheduledAt: BAD } }), credentials: account },
];

describe('bad input never reaches the service', () => {
	describe.each(CASES.map((c) => [`${c.operation} · ${c.field}`, c] as const))('%s', (_name, c) => {
		it.each(c.values.map((value) => [describeValue(value), value]))('%s', async (_label, value) => {
			tried.push(`${c.operation} ${c.field}`);
			let error: (Error & { context?: IDataObject }) | undefined;
			try {
				await executeNode({ parameters: c.parameters, credentials: c.credentials() }, [(c.item ? c.item(value) : { bad: value }) as IDataObject]);
			} catch (caught) {
				error = caught as Error;
			}
			const requests = emu.control.requests().filter((r) => !r.path.startsWith('/__emulator'));
			if (requests.length) leaked.push(`${c.operation} ${c.field} ${describeValue(value)}`);
			expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
			expect(error?.message).toMatch(/^Item 0: /);
			expect(error?.message).toContain(c.names ?? `"${c.field}`);
		});
	});
});

function describeValue(value: unknown): string {
	if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
	if (typeof value !== 'string') return JSON.stringify(value)?.slice(0, 80) ?? String(value);
	if (value.length > 40) return `${value.length} × "${value[0]}"`;
	return JSON.stringify(value);
}

describe('valid edge cases still go out', () => {
	const sendOne = async (parameters: IDataObject, item: IDataObject = {}) => {
		const [out] = await executeNode({ parameters, credentials: apiKey() }, [item]);
		return out;
	};

	it('a 1600-character GSM text: 10 segments', async () => {
		const [item] = await sendOne(sms('send', { message: 'a'.repeat(1600) }));
		expect(item.json).toMatchObject({ accepted: true, encoding: 'GSM-7', segments: 10 });
	});

	it('a 70-character Unicode text: 1 segment', async () => {
		const [item] = await sendOne(sms('send', { message: 'д'.repeat(70) }));
		expect(item.json).toMatchObject({ accepted: true, encoding: 'Unicode', segments: 1 });
	});

	it('a national number with a Default Country', async () => {
		const [item] = await sendOne(sms('send', { phoneNumber: '0712345678', options: { defaultCountry: 'KE' } }));
		expect(item.json).toMatchObject({ accepted: true, phoneNumber: PHONE });
	});

	it('an 11-character sender ID', async () => {
		emu.control.updateAccount(SEED_LOGINS.demo.accountId, {
			senderIds: [{ senderId: 'SVCTEST1234', type: 'ALPHANUMERIC', countries: ['KE'] }],
		} as never);
		const [out] = await executeNode({ parameters: sms('send', { senderId: rl('SVCTEST1234') }), credentials: apiKey() }, [{}]);
		const item = out[0];
		expect(item.json).toMatchObject({ accepted: true });
		expect(emu.control.messages()[0].senderId).toBe('SVCTEST1234');
	});

	it('Send Bulk placeholders filled with emoji, and a number read as text', async () => {
		const out = await sendOne(bulk({ message: 'Hi {{name}}, your code is {{code}}' }), { phone: PHONE, name: 'Amina 🎉', code: 4521 });
		expect(out[0].json).toMatchObject({ accepted: true });
		expect(emu.control.messages()[0].message).toBe('Hi Amina 🎉, your code is 4521');
	});

	it('a chat message whose text has emoji and direction marks around visible text', async () => {
		const [item] = await sendOne(chat({ text: '\u200FSalaam 👋\u200E' }));
		expect(item.json).toMatchObject({ accepted: true });
	});
});
