import { NodeHelpers } from 'n8n-workflow';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, listSearch } from '../helpers/n8n';
import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';
import { createParameters, credentials, credits, errorOf, getCampaign, nairobiWallClock, requests, run, SEED_LOGINS } from './helpers';

const emu = useEmulator();

const campaignPosts = () => requests(emu, 'POST', '/api/sms/campaigns');

describe('Campaign → Create', () => {
	it('creates a DRAFT from a list of numbers in one item, normalised and deduplicated, with the credit preview', async () => {
		const [item] = await run(
			emu.url,
			createParameters({
				phoneNumbers: '0712 345 678\n+254712345678; +254 722 000 111',
				options: { defaultCountry: 'KE' },
			}),
		);
		expect(item.json).toMatchObject({
			name: 'March promotion',
			status: 'DRAFT',
			totalRecipients: 2,
			scheduledAt: null,
			encoding: 'GSM-7',
			segments: 1,
			creditsPerRecipient: 1,
			estimatedCredits: 2,
		});
		expect(item.pairedItem).toEqual({ item: 0 });
		const stored = await getCampaign(emu.url, item.json.id);
		expect(stored).toMatchObject({
			senderId: 'ACMEKE',
			message: 'Hello from ACME: 20% off this week',
			manualNumbers: ['+254712345678', '+254722000111'],
			contactGroupIds: [],
		});
		expect(campaignPosts()).toHaveLength(1);
	});

	it('accepts an array from an expression and contact groups; totalRecipients is counted after the service deduplicates', async () => {
		const [item] = await run(
			emu.url,
			createParameters({ phoneNumbers: '={{ $json.numbers }}', contactGroupIds: '1, 2' }),
			[{ numbers: ['+254711000001', '+254712345678'] }],
		);
		// Group 1: …001–003, group 2: …003–004, plus one new manual number.
		expect(item.json).toMatchObject({ status: 'DRAFT', totalRecipients: 5, estimatedCredits: 5 });
		expect(await getCampaign(emu.url, item.json.id)).toMatchObject({ contactGroupIds: [1, 2] });
	});

	it('creates a campaign for contact groups only', async () => {
		const [item] = await run(emu.url, createParameters({ recipientsSource: 'none', contactGroupIds: '2' }));
		expect(item.json).toMatchObject({ status: 'DRAFT', totalRecipients: 2 });
		expect(await getCampaign(emu.url, item.json.id)).toMatchObject({ manualNumbers: [], contactGroupIds: [2] });
	});

	it('"One Number per Input Item" collects every item into a single campaign paired with all of them', async () => {
		const out = await run(
			emu.url,
			createParameters({ recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', options: { defaultCountry: 'KE' } }),
			[{ phone: '0712345678' }, { phone: '+254722000111' }, { phone: '+254 712 345 678' }],
		);
		expect(out).toHaveLength(1);
		expect(out[0].json).toMatchObject({ status: 'DRAFT', totalRecipients: 2 });
		expect(out[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(campaignPosts()).toHaveLength(1);
		expect((await getCampaign(emu.url, out[0].json.id)).manualNumbers).toEqual(['+254712345678', '+254722000111']);
	});

	it('"List of Numbers in Each Item" creates one campaign per input item', async () => {
		const out = await run(emu.url, createParameters({ name: '={{ $json.name }}', phoneNumbers: '={{ $json.phone }}' }), [
			{ name: 'North', phone: '+254712345678' },
			{ name: 'South', phone: '+254722000111' },
		]);
		expect(out.map((o) => [o.json.name, o.json.totalRecipients, o.pairedItem])).toEqual([
			['North', 1, { item: 0 }],
			['South', 1, { item: 1 }],
		]);
		expect(new Set(out.map((o) => o.json.id)).size).toBe(2);
	});

	it('schedules the campaign at a time given in the workflow timezone (SCHEDULED)', async () => {
		const { wall, utc } = nairobiWallClock(2 * 3600_000);
		const [item] = await run(emu.url, createParameters({ options: { scheduledAt: wall } }));
		expect(item.json).toMatchObject({ status: 'SCHEDULED', scheduledAt: utc });
	});

	it('previews Unicode messages: 70 characters per segment, credits = segments × recipients', async () => {
		const message = `Habari! Ofa maalum 😀 ${'x'.repeat(60)}`;
		const [item] = await run(emu.url, createParameters({ message }));
		expect(item.json).toMatchObject({ encoding: 'Unicode', segments: 2, creditsPerRecipient: 2, totalRecipients: 2, estimatedCredits: 4 });
	});

	it('a retried run of the same execution returns the campaign it already created instead of creating another', async () => {
		const setup = { parameters: { resource: 'campaign', ...createParameters() }, credentials: credentials(emu.url), executionId: 'retry-1' };
		const [[first]] = await executeNode(setup);
		const [[second]] = await executeNode(setup);
		expect(second.json.id).toBe(first.json.id);
		expect(campaignPosts()).toHaveLength(1);
	});

	describe('sender ID', () => {
		it('"Pick Sender ID From Account List" lists the sender IDs with the API key and uses the picked one', async () => {
			const parameters = { resource: 'campaign', ...createParameters({ useApiKey: true, senderId: { __rl: true, mode: 'list', value: '' } }) };
			const found = await listSearch({ parameters, credentials: credentials(emu.url) }, 'searchSenderIds', 'acme');
			expect(found.results.map((r) => r.value)).toEqual(['ACMEKE']);
			const [item] = await run(emu.url, { ...parameters, senderId: { __rl: true, mode: 'list', value: found.results[0].value } });
			expect((await getCampaign(emu.url, item.json.id)).senderId).toBe('ACMEKE');
		});

		it('shows the API-key credential and the picker only when the picker is on, and the account credential for every campaign operation', () => {
			const description = new SvcMessaging().description;
			const shown = (values: INodeParameters) => {
				const parameters = NodeHelpers.getNodeParameters(description.properties, values, true, false, { typeVersion: 1 }, description)!;
				return description.credentials!.filter((c) => NodeHelpers.displayParameter(parameters, c, { typeVersion: 1 }, description)).map((c) => c.name);
			};
			expect(shown({ resource: 'campaign', operation: 'create' })).toEqual(['svcMessagingAccountApi']);
			expect(shown({ resource: 'campaign', operation: 'create', useApiKey: true })).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
			expect(shown({ resource: 'campaign', operation: 'update', useApiKey: true })).toEqual(['svcMessagingApi', 'svcMessagingAccountApi']);
			expect(shown({ resource: 'campaign', operation: 'getAll' })).toEqual(['svcMessagingAccountApi']);
			expect(shown({ resource: 'account', operation: 'getBalance' })).toEqual(['svcMessagingAccountApi']);
			const create = NodeHelpers.getNodeParameters(description.properties, { resource: 'campaign', operation: 'create' }, true, false, { typeVersion: 1 }, description)!;
			expect(create).toMatchObject({ useApiKey: false, senderIdText: '', balanceCheck: false, checkBalance: true });
			expect(create.senderId).toBeUndefined();
			const picker = NodeHelpers.getNodeParameters(description.properties, { resource: 'campaign', operation: 'create', useApiKey: true }, true, false, { typeVersion: 1 }, description)!;
			expect(picker.senderId).toMatchObject({ mode: 'list', value: '' });
			expect(picker.senderIdText).toBeUndefined();
		});

		it('an ID the account has not been approved for is rejected by the service (422 INVALID_SENDER_ID)', async () => {
			const error = await errorOf(run(emu.url, createParameters({ senderIdText: 'NOTMINE' })));
			expect(error.message).toContain('INVALID_SENDER_ID');
			expect(error.httpCode).toBe('422');
			expect(emu.state.campaigns.size).toBe(0);
		});
	});

	describe('validation: the error names the field, the item and the rule, and nothing is requested', () => {
		const cases: Array<[string, IDataObject, RegExp]> = [
			['no recipients', { phoneNumbers: '', contactGroupIds: '' }, /^Item 0: the campaign has no recipients: fill in "Phone Numbers" or "Contact Group IDs"/],
			['contact groups only, none given', { recipientsSource: 'none', contactGroupIds: '' }, /^Item 0: "Contact Group IDs" must not be empty/],
			['a bad number in the list', { phoneNumbers: '+254712345678, 0712' }, /^Item 0: "Phone Numbers" entry 2 must be in E\.164 format .* \(got "0712"\)$/],
			['a number outside the supported countries', { phoneNumbers: '+14155550100' }, /^Item 0: "Phone Numbers" entry 1 is not in a supported destination country .* \(got "\+14155550100"\)$/],
			['a bad contact group ID', { contactGroupIds: '1, abc' }, /^Item 0: "Contact Group IDs" entry 2 must be a whole number greater than 0 \(got "abc"\)/],
			['an empty name', { name: '  ' }, /^Item 0: "Name" must not be empty/],
			['an empty message', { message: '' }, /^Item 0: "Message" must not be empty/],
			['a message over 1600 characters', { message: 'a'.repeat(1601) }, /^Item 0: "Message" must be at most 1600 characters \(it has 1601\)/],
			['no sender ID', { senderIdText: '' }, /^Item 0: "Sender ID" must not be empty: campaigns need an approved sender ID/],
			['a malformed sender ID', { senderIdText: 'acme ke' }, /^Item 0: "Sender ID" must be 1–11 capital letters A–Z or digits 0–9.*\(got "acme ke"\)/],
			['a scheduled time in the past', { options: { scheduledAt: '2020-01-01T10:00:00' } }, /^Item 0: "Scheduled Time" must be in the future \(got 2020-01-01T07:00:00\.000Z\)/],
			['an unreadable scheduled time', { options: { scheduledAt: 'next tuesday' } }, /^Item 0: "Scheduled Time" must be a date and time/],
		];
		it.each(cases)('%s', async (_, parameters, message) => {
			const error = await errorOf(run(emu.url, createParameters(parameters)));
			expect(error.message).toMatch(message);
			// Named once, in the message: without the index n8n's editor adds no second " [item 0]".
			expect((error.context as { itemIndex?: number }).itemIndex).toBeUndefined();
			expect(requests(emu)).toHaveLength(0);
		});

		it('"One Number per Input Item": names the first bad item, lists all of them, and creates nothing', async () => {
			const error = await errorOf(
				run(emu.url, createParameters({ recipientsSource: 'items', phoneNumber: '={{ $json.phone }}' }), [
					{ phone: '+254712345678' },
					{ phone: '' },
					{ phone: 'call me' },
				]),
			);
			expect(error.message).toBe('Item 1: "Phone Number" must not be empty');
			// One line per item, each naming the item once and quoting its value.
			expect(error.description).toContain('2 of 3 input item(s) have an invalid "Phone Number":\nitem 1: "Phone Number" must not be empty\nitem 2: "Phone Number" ');
			expect(error.description).toContain('(got "call me")\n');
			expect(error.description).toContain('The campaign was not created');
			expect(requests(emu)).toHaveLength(0);
		});

		it('with Continue On Fail, a bad item becomes an error item and the other items are still created', async () => {
			const out = await run(emu.url, createParameters({ phoneNumbers: '={{ $json.numbers }}' }), [{ numbers: ['+254712345678'] }, { numbers: ['12'] }], {
				continueOnFail: true,
			});
			expect(out[0].json).toMatchObject({ status: 'DRAFT', totalRecipients: 1 });
			expect(out[1].json.error).toMatch(/^Item 1: "Phone Numbers" entry 1 .*\(got "12"\)$/);
			expect(out[1].pairedItem).toEqual({ item: 1 });
			expect(campaignPosts()).toHaveLength(1);
		});

		it('a contact group the account does not have is rejected by the service (422 INVALID_CONTACT_GROUP)', async () => {
			const error = await errorOf(run(emu.url, createParameters({ contactGroupIds: '7' })));
			expect(error.message).toMatch(/INVALID_CONTACT_GROUP – Contact group 7 does not exist/);
		});
	});

	describe('Check Balance Before Sending', () => {
		it('stops before creating anything when the account has too few credits (needed vs available)', async () => {
			const error = await errorOf(run(emu.url, createParameters({ balanceCheck: true }), [{}], { login: SEED_LOGINS.broke }));
			expect(error.message).toBe('INSUFFICIENT_CREDITS: this send needs about 2 credits but the account has 0. Nothing was sent.');
			expect(error.description).toContain('The campaign was not created and nothing was sent.');
			expect(error.description).toContain('1 credit(s) per recipient');
			expect(requests(emu, 'GET', '/api/account/balance')).toHaveLength(1);
			expect(campaignPosts()).toHaveLength(0);
			expect(emu.state.campaigns.size).toBe(0);
		});

		it('with contact groups: counts the recipients on a draft, deletes it again when credits are short', async () => {
			emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 3 });
			const error = await errorOf(run(emu.url, createParameters({ phoneNumbers: '+254712345678', contactGroupIds: '1', balanceCheck: true })));
			expect(error.message).toContain('needs about 4 credits but the account has 3');
			expect(error.description).toMatch(/its draft, ID \d+, was deleted again/);
			expect(requests(emu).filter((r) => r.path.startsWith('/api/sms') || r.path.startsWith('/api/account')).map((r) => `${r.method} ${r.path.replace(/\d+$/, ':id')} ${r.status}`)).toEqual([
				'POST /api/sms/campaigns 201',
				'GET /api/account/balance 200',
				'DELETE /api/sms/campaigns/:id 200',
			]);
			expect(emu.state.campaigns.size).toBe(0);
			expect(credits(emu)).toBe(3);
		});

		it('with contact groups and enough credits: the draft is scheduled as asked', async () => {
			const { wall, utc } = nairobiWallClock(3600_000);
			const [item] = await run(emu.url, createParameters({ contactGroupIds: '1', balanceCheck: true, options: { scheduledAt: wall } }));
			expect(item.json).toMatchObject({ status: 'SCHEDULED', scheduledAt: utc, totalRecipients: 5, estimatedCredits: 5 });
			expect(requests(emu, 'PATCH', '/api/sms/campaigns/*')).toHaveLength(1);
			expect(credits(emu)).toBe(1000);
		});
	});
});
