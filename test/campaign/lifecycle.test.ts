import type { IDataObject } from 'n8n-workflow';
import { useEmulator } from '../helpers/emulatorFixture';
import {
	byId,
	createCampaign,
	credits,
	errorOf,
	getCampaign,
	nairobiWallClock,
	requests,
	run,
	waitFor,
} from './helpers';

const op = (operation: string, id: unknown, extra: IDataObject = {}) => ({ operation, campaignId: byId(id), ...extra });

describe('campaign lifecycle as seen through the node (fast emulator)', () => {
	const emu = useEmulator();

	const completed = async (id: unknown) => await waitFor('the campaign to complete', async () => ((c) => c.status === 'COMPLETED' && c)(await getCampaign(emu.url, id)), 10_000, 25);

	it('DRAFT → Send Now → SENDING → COMPLETED, with delivery counts and cost', async () => {
		const draft = await createCampaign(emu.url, { phoneNumbers: '+254712345678, +254712345999, +254722000111' });
		expect(draft.status).toBe('DRAFT');
		const [sent] = await run(emu.url, op('sendNow', draft.id));
		expect(sent.json).toMatchObject({ id: draft.id, status: 'SENDING', totalRecipients: 3, cost: 3 });
		expect(typeof sent.json.sentAt).toBe('string');
		const done = await completed(draft.id);
		// …999 is the emulator's undeliverable test number.
		expect(done).toMatchObject({ status: 'COMPLETED', successfulDeliveries: 2, failedDeliveries: 1, cost: 3 });
		expect(typeof done.completedAt).toBe('string');
		expect(credits(emu)).toBe(997);
		expect(requests(emu, 'POST', `/api/sms/campaigns/${String(draft.id)}/send`)).toHaveLength(1);
	});

	it('Cancel turns a DRAFT and a SCHEDULED campaign into CANCELLED', async () => {
		const draft = await createCampaign(emu.url);
		const scheduled = await createCampaign(emu.url, { options: { scheduledAt: nairobiWallClock(86_400_000).wall } });
		expect(scheduled.status).toBe('SCHEDULED');
		const [a] = await run(emu.url, op('cancel', draft.id));
		const [b] = await run(emu.url, op('cancel', scheduled.id));
		expect([a.json.status, b.json.status]).toEqual(['CANCELLED', 'CANCELLED']);
		expect((await getCampaign(emu.url, scheduled.id)).status).toBe('CANCELLED');
	});

	it('Send Now of a CANCELLED campaign: names the campaign, its status and what is allowed; nothing changes', async () => {
		const c = await createCampaign(emu.url, { name: 'Spring sale' });
		await run(emu.url, op('cancel', c.id));
		const error = await errorOf(run(emu.url, op('sendNow', c.id)));
		expect(error.message).toBe(
			`Cannot send campaign "Spring sale" (ID ${String(c.id)}): it is CANCELLED. Send Now is allowed only for DRAFT, SCHEDULED campaigns`,
		);
		expect(error.description).toContain('A cancelled campaign cannot be sent or changed again');
		expect(error.httpCode).toBe('409');
		expect((error.errorResponse as { code?: string }).code).toBe('INVALID_CAMPAIGN_STATUS');
		expect((await getCampaign(emu.url, c.id)).status).toBe('CANCELLED');
		expect(credits(emu)).toBe(1000);
	});

	it('Send Now and Cancel of a COMPLETED campaign are refused with its name and status; Update too', async () => {
		const c = await createCampaign(emu.url, { name: 'Done deal' });
		await run(emu.url, op('sendNow', c.id));
		await completed(c.id);
		const send = await errorOf(run(emu.url, op('sendNow', c.id)));
		expect(send.message).toBe(`Cannot send campaign "Done deal" (ID ${String(c.id)}): it is COMPLETED. Send Now is allowed only for DRAFT, SCHEDULED campaigns`);
		expect(send.description).toContain('already been sent to all its recipients');
		const cancel = await errorOf(run(emu.url, op('cancel', c.id)));
		expect(cancel.message).toBe(`Cannot cancel campaign "Done deal" (ID ${String(c.id)}): it is COMPLETED. Cancel is allowed only for DRAFT, SCHEDULED campaigns`);
		const update = await errorOf(run(emu.url, op('update', c.id, { senderIdText: '', updateFields: { name: 'Again' } })));
		expect(update.message).toBe(`Cannot update campaign "Done deal" (ID ${String(c.id)}): it is COMPLETED. Update is allowed only for DRAFT, SCHEDULED campaigns`);
		expect(credits(emu)).toBe(998);
	});

	it('Send Now with "Check Balance Before Sending" refuses a COMPLETED campaign before reading the balance', async () => {
		const c = await createCampaign(emu.url);
		await run(emu.url, op('sendNow', c.id));
		await completed(c.id);
		emu.control.clearRequests();
		const error = await errorOf(run(emu.url, op('sendNow', c.id, { balanceCheck: true })));
		expect(error.message).toMatch(/it is COMPLETED\. Send Now is allowed only for DRAFT, SCHEDULED campaigns$/);
		expect(requests(emu, 'GET', '/api/account/balance')).toHaveLength(0);
		expect(requests(emu, 'POST', '/api/sms/campaigns/*')).toHaveLength(0);
	});

	it('Update changes a DRAFT (name, message, numbers, schedule → SCHEDULED) and Remove Schedule makes it a DRAFT again', async () => {
		const c = await createCampaign(emu.url);
		const { wall, utc } = nairobiWallClock(6 * 3600_000);
		const [updated] = await run(
			emu.url,
			op('update', c.id, {
				senderIdText: '20880',
				updateFields: { name: 'Renamed', message: 'Karibu tena 😀', phoneNumbers: '0712345678, 0733000111, 0712 345 678', scheduledAt: wall },
				options: { defaultCountry: 'KE' },
			}),
		);
		expect(updated.json).toMatchObject({
			id: c.id,
			name: 'Renamed',
			message: 'Karibu tena 😀',
			senderId: '20880',
			status: 'SCHEDULED',
			scheduledAt: utc,
			manualNumbers: ['+254712345678', '+254733000111'],
			totalRecipients: 2,
			encoding: 'Unicode',
			estimatedCredits: 2,
		});
		const [draft] = await run(emu.url, op('update', c.id, { senderIdText: '', updateFields: { removeSchedule: true } }));
		expect(draft.json).toMatchObject({ status: 'DRAFT', scheduledAt: null, name: 'Renamed' });
	});

	it('Update replaces the recipients: numbers removed, a contact group added', async () => {
		const c = await createCampaign(emu.url);
		const [updated] = await run(emu.url, op('update', c.id, { senderIdText: '', updateFields: { phoneNumbers: '', contactGroupIds: '2' } }));
		expect(updated.json).toMatchObject({ manualNumbers: [], contactGroupIds: [2], totalRecipients: 2 });
	});

	it('Update with the sender ID picker sends the picked sender ID', async () => {
		const c = await createCampaign(emu.url);
		const [updated] = await run(emu.url, op('update', c.id, { useApiKey: true, senderId: { __rl: true, mode: 'list', value: 'SVCTEST' }, updateFields: {} }));
		expect(updated.json.senderId).toBe('SVCTEST');
	});

	describe('Update validation happens before any request', () => {
		const cases: Array<[string, IDataObject, RegExp]> = [
			['nothing to update', { senderIdText: '', updateFields: {} }, /^Item 0: nothing to update: set "Sender ID" or add a field under "Update Fields"$/],
			[
				'Remove Schedule together with a time',
				{ senderIdText: '', updateFields: { removeSchedule: true, scheduledAt: '2099-01-01T10:00:00' } },
				/^Item 0: "Remove Schedule" and "Scheduled Time" cannot be used together/,
			],
			['both recipient lists emptied', { senderIdText: '', updateFields: { phoneNumbers: '', contactGroupIds: '' } }, /^Item 0: "Phone Numbers" and "Contact Group IDs" are both empty/],
			['a malformed sender ID', { senderIdText: 'Acme!', updateFields: {} }, /^Item 0: "Sender ID" must be 1–11 capital letters/],
			['an empty message', { senderIdText: '', updateFields: { message: '' } }, /^Item 0: "Message" must not be empty/],
			['a past scheduled time', { senderIdText: '', updateFields: { scheduledAt: '2021-05-01T08:00:00' } }, /^Item 0: "Scheduled Time" must be in the future/],
		];
		it.each(cases)('%s', async (_, parameters, message) => {
			const error = await errorOf(run(emu.url, op('update', 1, parameters)));
			expect(error.message).toMatch(message);
			expect(requests(emu)).toHaveLength(0);
		});
	});

	it('Delete returns { deleted: true, id } and the campaign is gone afterwards (Get → NOT_FOUND)', async () => {
		const c = await createCampaign(emu.url);
		const [deleted] = await run(emu.url, op('delete', c.id));
		expect(deleted.json).toEqual({ deleted: true, id: c.id });
		const error = await errorOf(run(emu.url, op('get', c.id)));
		expect(error.message).toMatch(/NOT_FOUND/);
		expect(error.httpCode).toBe('404');
	});

	it('Delete works for COMPLETED and CANCELLED campaigns', async () => {
		const a = await createCampaign(emu.url);
		const b = await createCampaign(emu.url);
		await run(emu.url, op('sendNow', a.id));
		await completed(a.id);
		await run(emu.url, op('cancel', b.id));
		const out = await run(emu.url, { operation: 'delete', campaignId: '={{ { "__rl": true, "mode": "id", "value": String($json.id) } }}' }, [
			{ id: a.id },
			{ id: b.id },
		]);
		expect(out.map((o) => o.json)).toEqual([
			{ deleted: true, id: a.id },
			{ deleted: true, id: b.id },
		]);
		expect(emu.state.campaigns.size).toBe(0);
	});

	it('Get returns the full campaign; a campaign ID that is not a number is refused before any request', async () => {
		const c = await createCampaign(emu.url, { contactGroupIds: '1' });
		const got = await getCampaign(emu.url, c.id);
		expect(got).toMatchObject({ id: c.id, status: 'DRAFT', totalRecipients: 5, contactGroupIds: [1], successfulDeliveries: 0, cost: 0 });
		emu.control.clearRequests();
		const error = await errorOf(run(emu.url, op('get', 'abc')));
		expect(error.message).toBe('Item 0: "Campaign" must be a campaign ID (a whole number greater than 0), got "abc"');
		expect(requests(emu)).toHaveLength(0);
	});

	it('with Continue On Fail, an unknown campaign becomes an error item paired with its input', async () => {
		const c = await createCampaign(emu.url);
		const out = await run(emu.url, { operation: 'get', campaignId: '={{ { "__rl": true, "mode": "id", "value": String($json.id) } }}' }, [{ id: c.id }, { id: 9999 }], {
			continueOnFail: true,
		});
		expect(out[0].json).toMatchObject({ id: c.id, status: 'DRAFT' });
		expect(out[1].json.error).toMatch(/NOT_FOUND – Campaign '9999' not found/);
		expect(out[1].pairedItem).toEqual({ item: 1 });
	});
});

describe('a campaign that is SENDING (emulator in real time)', () => {
	// timeScale 1: messages take 4 s to reach a final status, so the campaign stays SENDING meanwhile.
	const emu = useEmulator({ timeScale: 1, resetEachTest: false });
	let id: unknown;
	beforeAll(async () => {
		const c = await createCampaign(emu.url, { name: 'In flight' });
		id = c.id;
		const [sent] = await run(emu.url, op('sendNow', id));
		expect(sent.json.status).toBe('SENDING');
	});

	it('Get shows SENDING', async () => {
		expect((await getCampaign(emu.url, id)).status).toBe('SENDING');
	});

	it('Update is refused with the name, the status and what is allowed', async () => {
		const error = await errorOf(run(emu.url, op('update', id, { senderIdText: '', updateFields: { name: 'Too late' } })));
		expect(error.message).toBe(`Cannot update campaign "In flight" (ID ${String(id)}): it is SENDING. Update is allowed only for DRAFT, SCHEDULED campaigns`);
		expect(error.description).toBe(
			'The campaign is being sent right now; wait until it is COMPLETED (Get shows its progress). Nothing was changed.',
		);
	});

	it('Delete is refused while sending; every other status is listed as allowed', async () => {
		const error = await errorOf(run(emu.url, op('delete', id)));
		expect(error.message).toBe(
			`Cannot delete campaign "In flight" (ID ${String(id)}): it is SENDING. Delete is allowed only for DRAFT, SCHEDULED, CANCELLED, COMPLETED, FAILED campaigns`,
		);
		expect(emu.state.campaigns.has(Number(id))).toBe(true);
	});

	it('Cancel and a second Send Now are refused', async () => {
		expect((await errorOf(run(emu.url, op('cancel', id)))).message).toMatch(/^Cannot cancel campaign "In flight" .*: it is SENDING\./);
		expect((await errorOf(run(emu.url, op('sendNow', id)))).message).toMatch(/^Cannot send campaign "In flight" .*: it is SENDING\./);
		expect(credits(emu)).toBe(998);
	});
});

describe('a SCHEDULED campaign when its time comes', () => {
	const emu = useEmulator();

	it('is sent by the service without Send Now and ends COMPLETED', async () => {
		const c = await createCampaign(emu.url, { options: { scheduledAt: nairobiWallClock(3600_000).wall } });
		expect(c.status).toBe('SCHEDULED');
		expect((await getCampaign(emu.url, c.id)).status).toBe('SCHEDULED');
		await emu.control.advance(3600_000 + 5_000);
		const done = await waitFor('the campaign to complete', async () => ((x) => x.status === 'COMPLETED' && x)(await getCampaign(emu.url, c.id)), 10_000, 25);
		expect(done).toMatchObject({ status: 'COMPLETED', successfulDeliveries: 2, failedDeliveries: 0, cost: 2 });
		expect(requests(emu, 'POST', `/api/sms/campaigns/${String(c.id)}/send`)).toHaveLength(0);
	});
});
