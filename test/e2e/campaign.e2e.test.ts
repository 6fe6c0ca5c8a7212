/**
 * Campaign and Account resources in a real n8n (Bearer JWT from the Account credential, which n8n
 * fills through preAuthentication): the whole campaign lifecycle, one workflow per operation.
 */
import { e2e, jsonOf, pairedIndex, runOne, untilStatus } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);

const one = (name: string, nodeName: string, items: Array<Record<string, unknown>>) => runOne(n8n, name, nodeName, items);

async function createCampaign(fields: Record<string, unknown>) {
	const [item] = await one('campaign-create', 'Create Campaign', [fields]);
	expect(item.json.id).toBeDefined();
	return item.json;
}

describe('Campaign', () => {
	test('Create: a draft with national numbers normalised and deduplicated, a scheduled one, an invalid item', async () => {
		const at = new Date(Date.now() + 24 * 3600_000);
		at.setUTCMilliseconds(0);
		const output = await one('campaign-create', 'Create Campaign', [
			{ name: `Draft ${run}`, message: 'Hello from a draft', senderId: 'ACMEKE', phoneNumbers: '0712000701, +254712000701, 0712000702' },
			{ name: `Scheduled ${run}`, message: 'Hello later', senderId: 'SVCTEST', phoneNumbers: '+254712000703', contactGroupIds: '1', scheduledAt: at.toISOString() },
			{ name: `Invalid ${run}`, message: 'x', senderId: 'not valid!', phoneNumbers: '+254712000704' },
		]);
		expect(output.map(pairedIndex)).toEqual([0, 1, 2]);
		const [draft, scheduled, invalid] = jsonOf(output);
		// The create answer is short (id, name, status, totalRecipients, scheduledAt, createdAt) plus the
		// node's credit estimate; Get shows the stored numbers.
		expect(draft).toMatchObject({ status: 'DRAFT', totalRecipients: 2, encoding: 'GSM-7', segments: 1, estimatedCredits: 2 });
		// 1 manual number + contact group 1 (3 members)
		expect(scheduled).toMatchObject({ status: 'SCHEDULED', totalRecipients: 4, scheduledAt: at.toISOString() });
		const stored = jsonOf(await one('campaign-get', 'Get Campaign', [{ campaignId: draft.id }, { campaignId: scheduled.id }]));
		expect(stored[0]).toMatchObject({ senderId: 'ACMEKE', contactGroupIds: [] });
		expect(stored[0].manualNumbers.sort()).toEqual(['+254712000701', '+254712000702']);
		expect(stored[1]).toMatchObject({ senderId: 'SVCTEST', contactGroupIds: [1], manualNumbers: ['+254712000703'] });
		expect(invalid.error).toMatch(/Sender ID/);
	});

	test('Get, Get Many (limit), Update, Send Now → COMPLETED, Cancel, Delete, and an invalid transition', async () => {
		const draft = await createCampaign({ name: `Lifecycle ${run}`, message: 'Lifecycle test', senderId: 'SVCTEST', phoneNumbers: '+254712000711, +254712000999' });
		const id = draft.id;

		const [got] = jsonOf(await one('campaign-get', 'Get Campaign', [{ campaignId: id }]));
		expect(got).toMatchObject({ id, status: 'DRAFT', name: `Lifecycle ${run}` });

		const many = jsonOf(await one('campaign-get-many', 'Get Campaigns', [{ limit: 2 }]));
		expect(many).toHaveLength(2);
		expect(many[0].id).toBe(id); // most recent first

		const [updated] = jsonOf(await one('campaign-update', 'Update Campaign', [{ campaignId: id, name: `Lifecycle ${run} v2`, message: 'Lifecycle test v2' }]));
		expect(updated).toMatchObject({ id, name: `Lifecycle ${run} v2`, message: 'Lifecycle test v2', status: 'DRAFT' });

		const [sent] = jsonOf(await one('campaign-send-now', 'Send Campaign', [{ campaignId: id }]));
		expect(sent).toMatchObject({ id, status: 'SENDING' });
		const getCampaign = async () => jsonOf(await one('campaign-get', 'Get Campaign', [{ campaignId: id }]))[0];
		const completed = await untilStatus('the campaign to complete', 'COMPLETED', getCampaign, 30_000, 500);
		expect(completed).toMatchObject({ successfulDeliveries: 1, failedDeliveries: 1 });
		const messages = await emulator.messages({ campaignId: String(id) });
		expect(messages.map((m) => [m.phoneNumber, m.message]).sort()).toEqual([
			['+254712000711', 'Lifecycle test v2'],
			['+254712000999', 'Lifecycle test v2'],
		]);

		// Cancelling a completed campaign: an error item naming the campaign and its status.
		const [refused] = jsonOf(await one('campaign-cancel', 'Cancel Campaign', [{ campaignId: id }]));
		expect(refused.error).toMatch(/COMPLETED/);
		expect(refused.error).toMatch(new RegExp(String(id)));

		const scheduled = await createCampaign({
			name: `To cancel ${run}`,
			message: 'Never sent',
			senderId: 'SVCTEST',
			phoneNumbers: '+254712000712',
			scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
		});
		const [cancelled] = jsonOf(await one('campaign-cancel', 'Cancel Campaign', [{ campaignId: scheduled.id }]));
		expect(cancelled).toMatchObject({ id: scheduled.id, status: 'CANCELLED' });

		const [deleted] = jsonOf(await one('campaign-delete', 'Delete Campaign', [{ campaignId: scheduled.id }]));
		expect(deleted).toMatchObject({ deleted: true });
		expect(String(deleted.id)).toBe(String(scheduled.id));
		const [gone] = jsonOf(await one('campaign-get', 'Get Campaign', [{ campaignId: scheduled.id }]));
		expect(gone.error).toMatch(/NOT_FOUND|not found/i);
		expect(await emulator.messages({ campaignId: String(scheduled.id) })).toHaveLength(0);
	});
});

describe('Account', () => {
	test('Get Balance reports what the emulator holds, and drops by the credits a send used', async () => {
		const [before] = jsonOf(await one('account-get-balance', 'Get Balance', [{}]));
		expect(before).toMatchObject({ credits: expect.any(Number), updatedAt: expect.any(String) });
		const account = await emulator.account('acc_demo');
		expect(before.credits).toBe(account.credits);

		const sent = jsonOf(await one('sms-send', 'Send SMS', [{ phone: '+254712000721', text: 'x'.repeat(161) }]));
		expect(sent[0]).toMatchObject({ accepted: true, segments: 2 });
		const [after] = jsonOf(await one('account-get-balance', 'Get Balance', [{}]));
		expect(after.credits).toBe(before.credits - 2);
	});
});
