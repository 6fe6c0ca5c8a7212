/**
 * SMS and Sender ID operations in a real n8n: one workflow per operation (test/e2e/workflows/),
 * started through its Webhook node, outputs read from the saved execution and checked against
 * what the emulator recorded.
 */
import { e2e, expectSuccess, jsonOf, out, pairedIndex, waitFor, withNode, workflow } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);

const sendRequests = async () =>
	(await emulator.requests()).filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');

describe('SMS → Send', () => {
	test('one SMS per item: normalised numbers, encoding/segments, sender, reference; error items with Continue On Fail', async () => {
		const ref = `e2e-send-${run}`;
		await emulator.clearRequests();
		const items = [
			{ phone: '+254712000101', text: 'Your code is 4821', ref },
			{ phone: '0712 000 102', text: 'Karibu! Asante sana 😀', ref, sender: 'ACMEKE' },
			{ phone: 'not-a-number', text: 'never sent', ref },
			{ phone: '+233241000103', text: 'Hello Accra', ref, sender: 'ACMEKE' },
		];
		const { execution, response } = await n8n.run(workflow('sms-send'), { items });
		expectSuccess(execution);
		expect(response.status).toBe(200);

		const output = out(execution, 'Send SMS');
		expect(output).toHaveLength(4);
		expect(output.map(pairedIndex)).toEqual([0, 1, 2, 3]);
		const [first, second, invalid, rejected] = jsonOf(output);

		expect(first).toMatchObject({ accepted: true, phoneNumber: '+254712000101', encoding: 'GSM-7', segments: 1, creditsUsed: 1, reference: ref });
		expect(first.messageId).toEqual(expect.any(String));
		expect(second).toMatchObject({ accepted: true, phoneNumber: '+254712000102', encoding: 'Unicode', senderId: 'ACMEKE' });

		// Checked by the node: nothing was sent for it.
		expect(invalid).toMatchObject({ accepted: false, errorCode: 'VALIDATION_ERROR' });
		expect(invalid.errorMessage).toMatch(/Phone Number/);
		// Rejected by the service: its code and message reach the item.
		expect(rejected).toMatchObject({ accepted: false, errorCode: 'INVALID_SENDER_ID', phoneNumber: '+233241000103' });
		expect(rejected.errorMessage).toMatch(/INVALID_SENDER_ID/);
		// No `json.error` on any item (it would make n8n's Retry On Fail re-send everything).
		expect(output.every((i) => i.json.error === undefined)).toBe(true);

		const recorded = (await emulator.messages()).filter((m) => m.reference === ref);
		expect(recorded.map((m) => [m.phoneNumber, m.message, m.senderId]).sort()).toEqual(
			[
				['+254712000101', 'Your code is 4821', 'SVCSMS'], // the service's default sender ID
				['+254712000102', 'Karibu! Asante sana 😀', 'ACMEKE'],
			].sort(),
		);
		expect(recorded.map((m) => m.messageId).sort()).toEqual([first.messageId, second.messageId].sort());
		expect(await sendRequests()).toHaveLength(3);
	});

	test('scheduled time and delivery report URL are sent as given', async () => {
		const ref = `e2e-sched-${run}`;
		const at = new Date(Date.now() + 3 * 3600_000);
		at.setUTCMilliseconds(0);
		const { execution } = await n8n.run(workflow('sms-send'), {
			items: [{ phone: '+254712000104', text: 'Later', ref, scheduledAt: at.toISOString(), webhookUrl: 'https://example.com/hooks/sms' }],
		});
		expectSuccess(execution);
		const [item] = jsonOf(out(execution, 'Send SMS'));
		expect(item).toMatchObject({ accepted: true, scheduledAt: at.toISOString() });
		const [message] = (await emulator.messages()).filter((m) => m.reference === ref);
		expect(message).toMatchObject({ scheduledAt: at.toISOString(), webhookUrl: 'https://example.com/hooks/sms', status: 'PENDING' });
	});

	test('without Continue On Fail a rejected message fails the execution with the service error', async () => {
		const wf = withNode(workflow('sms-send'), 'Send SMS', { onError: 'stopWorkflow' });
		const { execution } = await n8n.run(wf, { items: [{ phone: '+233241000105', text: 'x', sender: 'ACMEKE' }] });
		expect(execution.status).toBe('error');
		expect(execution.data?.resultData.error?.message).toMatch(/INVALID_SENDER_ID/);
	});
});

describe('SMS → Send Bulk', () => {
	test('partial success is mapped back to the input items, with per-recipient variables', async () => {
		const items = [
			{ phone: '+254712000201', name: 'Amina', order: 'A-1' },
			{ phone: '+256772000202', name: 'Brian', order: 'A-2' },
			{ phone: '+233241000203', name: 'Kofi', order: 'A-3' }, // ACMEKE is not approved for Ghana
			{ phone: '0712', name: 'Typo', order: 'A-4' }, // invalid: caught by the node
			{ phone: '+255712000205', name: 'Neema', order: 'A-5' },
		];
		await emulator.clearRequests();
		const { execution } = await n8n.run(workflow('sms-send-bulk'), { items });
		expectSuccess(execution);
		const output = out(execution, 'Send Bulk');
		expect(output).toHaveLength(5);
		expect(output.map(pairedIndex)).toEqual([0, 1, 2, 3, 4]);
		const json = jsonOf(output);
		const batchId = json[0].batchId as string;
		expect(batchId).toEqual(expect.any(String));
		for (const i of [0, 1, 4]) {
			expect(json[i]).toMatchObject({ accepted: true, batchId, phoneNumber: items[i].phone });
			expect(json[i].messageId).toEqual(expect.any(String));
		}
		expect(json[2]).toMatchObject({ accepted: false, errorCode: 'INVALID_SENDER_ID', phoneNumber: '+233241000203' });
		expect(json[3]).toMatchObject({ accepted: false, errorCode: 'VALIDATION_ERROR' });

		// One call for the whole batch; the emulator filled {{name}} and {{order}} per recipient.
		expect(await sendRequests()).toHaveLength(1);
		const recorded = await emulator.messages({ batchId });
		expect(recorded.map((m) => [m.phoneNumber, m.message]).sort()).toEqual(
			[
				['+254712000201', 'Hello Amina, your order A-1 has shipped'],
				['+256772000202', 'Hello Brian, your order A-2 has shipped'],
				['+255712000205', 'Hello Neema, your order A-5 has shipped'],
			].sort(),
		);
		for (const i of [0, 1, 4]) {
			expect(recorded.find((m) => m.phoneNumber === items[i].phone)?.messageId).toBe(json[i].messageId);
		}
	});

	test('a list of recipients in one item; chunks of the plan’s recipients per call', async () => {
		const recipients = Array.from({ length: 150 }, (_, i) => ({
			phoneNumber: `+2547120${String(i).padStart(5, '0')}`,
			variables: { name: `R${i}`, order: `L-${i}` },
		}));
		const wf = withNode(workflow('sms-send-bulk'), 'Send Bulk', {
			credentials: { svcMessagingApi: { id: 'svcApiFreeKey001', name: 'SVC Messaging API (emulator, Free)' } },
			parameters: { recipientsSource: 'list', recipients: '={{ $json.recipients }}' },
		});
		await emulator.clearRequests();
		const { execution } = await n8n.run(wf, { items: [{ recipients }] });
		expectSuccess(execution);
		const output = jsonOf(out(execution, 'Send Bulk'));
		expect(output).toHaveLength(150);
		expect(output.every((o) => o.accepted === true)).toBe(true);
		// Free plan: at most 100 recipients per call.
		expect(await sendRequests()).toHaveLength(2);
		expect(new Set(output.map((o) => o.batchId)).size).toBe(2);
	});
});

describe('SMS lookups', () => {
	test('Get Message, Get Batch and Get Delivery Rates read what was sent', async () => {
		const ref = `e2e-lookup-${run}`;
		const sent = await n8n.run(workflow('sms-send'), {
			items: [
				{ phone: '+254712000301', text: 'Lookup me', ref },
				{ phone: '+254712000999', text: 'Will fail', ref },
			],
		});
		const [okMessage, failing] = jsonOf(out(expectSuccess(sent.execution), 'Send SMS'));
		const bulk = await n8n.run(workflow('sms-send-bulk'), {
			items: [
				{ phone: '+254712000302', name: 'A', order: '1' },
				{ phone: '+254712000998', name: 'B', order: '2' },
			],
		});
		const batchId = jsonOf(out(expectSuccess(bulk.execution), 'Send Bulk'))[0].batchId as string;

		// Wait for the emulator's lifecycle (scaled) to reach a final status.
		const final = ['DELIVERED', 'FAILED', 'EXPIRED'];
		await waitFor(
			'the four messages to reach a final status',
			async () => {
				const messages = (await emulator.messages()).filter((m) => m.batchId === batchId || m.reference === ref);
				return messages.length === 4 && messages.every((m) => final.includes(m.status)) ? true : undefined;
			},
			20_000,
			200,
		);

		const lookup = await n8n.run(workflow('sms-get-message'), {
			items: [{ messageId: okMessage.messageId }, { messageId: failing.messageId }, { messageId: 'msg_does_not_exist' }],
		});
		const messages = jsonOf(out(expectSuccess(lookup.execution), 'Get Message'));
		expect(messages[0]).toMatchObject({ messageId: okMessage.messageId, status: 'DELIVERED', phoneNumber: '+254712000301' });
		expect(messages[1]).toMatchObject({ messageId: failing.messageId, status: 'FAILED' });
		// Continue On Fail: n8n's usual error item for a lookup.
		expect(messages[2].error).toMatch(/NOT_FOUND|not found/i);

		const batch = await n8n.run(workflow('sms-get-batch'), { items: [{ batchId }] });
		const [batchJson] = jsonOf(out(expectSuccess(batch.execution), 'Get Batch'));
		expect(batchJson).toMatchObject({ batchId, status: 'COMPLETED', total: 2, delivered: 1, expired: 1, pending: 0 });

		const today = new Date().toISOString().slice(0, 10);
		const rates = await n8n.run(workflow('sms-get-delivery-rates'), { items: [{ startDate: today, endDate: today }] });
		const [ratesJson] = jsonOf(out(expectSuccess(rates.execution), 'Delivery Rates'));
		expect(ratesJson.period).toBe(`${today}/${today}`);
		expect(ratesJson.totalSent).toBeGreaterThanOrEqual(4);
		expect(ratesJson.delivered).toBeGreaterThanOrEqual(2);
		expect(ratesJson.averageDeliveryTime).toMatch(/^\d+(\.\d)?s$/);
	});
});

describe('Sender ID → Get Many', () => {
	test('lists the approved sender IDs, with country filter and limit', async () => {
		const all = await n8n.run(workflow('sender-id-get-many'), { items: [{}] });
		const ids = jsonOf(out(expectSuccess(all.execution), 'Sender IDs')).map((s) => s.senderId);
		expect(ids.sort()).toEqual(['20880', 'ACMEKE', 'SVCTEST']);

		const ghana = await n8n.run(workflow('sender-id-get-many'), { items: [{ country: 'GH' }, { returnAll: false, limit: 1 }] });
		const output = out(expectSuccess(ghana.execution), 'Sender IDs');
		expect(output.filter((i) => pairedIndex(i) === 0).map((i) => i.json.senderId)).toEqual(['SVCTEST']);
		expect(output.filter((i) => pairedIndex(i) === 1)).toHaveLength(1);
	});
});
