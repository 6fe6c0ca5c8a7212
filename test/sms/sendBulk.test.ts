import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { apiKeyCredentials, SEED_KEYS, sendBulkParameters, sent } from './fixtures';

const emu = useEmulator();

const bulk = (extra: Record<string, unknown> = {}) => sendBulkParameters({ message: 'Hi {{name}}, order {{order}} is ready', ...extra });

const rows = (n: number, offset = 0) =>
	Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(10000000 + offset + i).padStart(8, '0')}`, name: `N${i}`, order: 100 + i }));

describe('SMS → Send Bulk', () => {
	it('sends one recipient per item with per-recipient variables, one output per recipient', async () => {
		const [out] = await executeNode({ parameters: bulk(), credentials: apiKeyCredentials(emu.url) }, rows(3));
		expect(sent(emu)).toHaveLength(1);
		expect(out).toHaveLength(3);
		const batchId = out[0].json.batchId;
		out.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({ accepted: true, batchId, status: 'PENDING', phoneNumber: rows(3)[i].phone });
		});
		expect(emu.control.messages().map((m) => m.message)).toEqual([
			'Hi N0, order 100 is ready',
			'Hi N1, order 101 is ready',
			'Hi N2, order 102 is ready',
		]);
	});

	it("splits into calls of the plan's recipients per call (Free: 100)", async () => {
		const [out] = await executeNode(
			{ parameters: bulk({ variablesSource: 'none', message: 'Sale today' }), credentials: apiKeyCredentials(emu.url, { plan: 'free' }) },
			rows(250),
		);
		expect(sent(emu)).toHaveLength(3);
		expect(out).toHaveLength(250);
		expect(new Set(out.map((i) => i.json.batchId)).size).toBe(3);
	});

	it('over several calls: each recipient gets its own text from its item, a repeated number is sent twice, outputs keep item order and pairing', async () => {
		const items = rows(230);
		items[5].phone = 'not a number'; // refused before sending (Continue On Fail: a rejected item)
		items[7] = { ...items[6] }; // the same number and values twice: two messages
		const [out] = await executeNode(
			{ parameters: bulk(), credentials: apiKeyCredentials(emu.url, { plan: 'free' }), settings: { onError: 'continueRegularOutput' } },
			items,
		);
		expect(sent(emu)).toHaveLength(3); // Free: 100 recipients per call
		expect(out).toHaveLength(230);
		expect(out.map((i) => i.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		expect(out[5].json).toMatchObject({ accepted: false, phoneNumber: 'not a number' });
		const accepted = out.filter((i) => i.json.accepted === true);
		expect(accepted).toHaveLength(229);
		expect(new Set(accepted.map((i) => i.json.messageId)).size).toBe(229);
		const messages = emu.control.messages();
		expect(messages).toHaveLength(229);
		expect(messages.filter((m) => m.phoneNumber === items[6].phone).map((m) => m.message)).toEqual(['Hi N6, order 106 is ready', 'Hi N6, order 106 is ready']);
		const textOf = new Map(messages.map((m) => [m.phoneNumber, m.message]));
		items.forEach((item, i) => {
			if (i !== 5) expect(textOf.get(item.phone)).toBe(`Hi ${item.name}, order ${item.order} is ready`);
		});
	});

	it('maps a partial success back to the right input items (Continue On Fail)', async () => {
		const items = rows(5);
		items[1].phone = '+2547123'; // the service rejects these two
		items[3].phone = '+25471234567890';
		const [out] = await executeNode(
			{
				parameters: bulk({ options: { numberCheck: 'format' } }),
				credentials: apiKeyCredentials(emu.url),
				settings: { onError: 'continueRegularOutput' },
			},
			items,
		);
		expect(sent(emu)).toHaveLength(1);
		expect(out.map((i) => i.json.accepted)).toEqual([true, false, true, false, true]);
		expect(out.map((i) => i.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		expect(out[1].json).toMatchObject({ phoneNumber: '+2547123', errorCode: 'INVALID_PHONE_NUMBER' });
		expect(out[3].json).toMatchObject({ phoneNumber: '+25471234567890', errorCode: 'INVALID_PHONE_NUMBER' });
		expect(out[4].json.phoneNumber).toBe(items[4].phone);
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([items[0].phone, items[2].phone, items[4].phone]);
	});

	it('without Continue On Fail, names the rejected items and reports the accepted ones', async () => {
		const items = rows(4);
		items[2].phone = '+2547123';
		const run = executeNode({ parameters: bulk({ options: { numberCheck: 'format' } }), credentials: apiKeyCredentials(emu.url) }, items);
		await expect(run).rejects.toThrow('1 recipient(s) were not accepted (items 2); 3 were accepted');
		expect(emu.control.messages()).toHaveLength(3);
	});

	it('takes a list of recipients from each item', async () => {
		const [out] = await executeNode(
			{
				parameters: bulk({
					recipientsSource: 'list',
					recipients: '={{ $json.people }}',
					message: 'Hello {{name}}',
				}),
				credentials: apiKeyCredentials(emu.url),
			},
			[
				{ people: [{ phoneNumber: '+254712345678', variables: { name: 'Amina' } }, { phoneNumber: '+254712345679', variables: { name: 'Juma' } }] },
				{ people: [{ phoneNumber: '+2348031234567', variables: { name: 'Ada' } }] },
			],
		);
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }]);
		expect(emu.control.messages().map((m) => m.message)).toEqual(['Hello Amina', 'Hello Juma', 'Hello Ada']);
	});

	it('refuses a recipient without a value for a placeholder, before sending anything', async () => {
		const items = rows(3);
		delete (items[1] as Partial<(typeof items)[number]>).order;
		const run = executeNode({ parameters: bulk(), credentials: apiKeyCredentials(emu.url) }, items);
		await expect(run).rejects.toThrow('Item 1: no value for the placeholder(s) {{order}} of "Message"');
		expect(sent(emu)).toHaveLength(0);
	});

	it('reports 413 PAYLOAD_TOO_LARGE when the credential claims a bigger plan than the key has', async () => {
		const run = executeNode(
			{ parameters: bulk({ variablesSource: 'none', message: 'x' }), credentials: apiKeyCredentials(emu.url, { apiKey: SEED_KEYS.free, plan: 'starter' }) },
			rows(150),
		);
		await expect(run).rejects.toMatchObject({ message: expect.stringMatching(/PAYLOAD_TOO_LARGE/), description: expect.stringMatching(/Check the Plan/) });
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('reports 402 INSUFFICIENT_CREDITS for every recipient of the call, nothing charged', async () => {
		const [out] = await executeNode(
			{
				parameters: bulk({ variablesSource: 'none', message: 'x' }),
				credentials: apiKeyCredentials(emu.url, { apiKey: SEED_KEYS.broke, plan: 'free' }),
				settings: { onError: 'continueRegularOutput' },
			},
			rows(2),
		);
		expect(out.map((i) => i.json.errorCode)).toEqual(['INSUFFICIENT_CREDITS', 'INSUFFICIENT_CREDITS']);
		expect(emu.control.messages()).toHaveLength(0);
	});
});
