/**
 * What node version 2 (the version of new nodes) does with its new defaults and fields,
 * run in n8n-core's context against the emulator. Parameters hold only what a user sets: the rest
 * are version 2's defaults.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials, bothCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, listSearch } from '../helpers/n8n';
import { jsonTemplate, mapped, templateOp, waitUntil } from '../chat/helpers';
import { nairobiWallClock } from '../campaign/helpers';

const emu = useEmulator();

async function runV2(parameters: IDataObject, items: IDataObject[] = [{}]) {
	const [out] = await executeNode({ parameters, credentials: bothCredentials(emu.url), typeVersion: 2 }, items);
	return out;
}

const posts = (path: string) => emu.control.requests().filter((r) => r.method === 'POST' && r.path === path);

describe('node version 2', () => {
	it('Campaign → Create: 3 rows make one campaign for all of them, scheduled by the Scheduled Time field, sender ID by ID', async () => {
		const { wall, utc } = nairobiWallClock(2 * 3600_000);
		const out = await runV2(
			{
				resource: 'campaign',
				name: 'March promotion',
				message: 'Hello from ACME',
				senderId: { __rl: true, mode: 'id', value: 'ACMEKE' },
				phoneNumber: '={{ $json.phone }}',
				scheduledAt: wall,
			},
			[{ phone: '+254712345678' }, { phone: '+254722000111' }, { phone: '+254733000222' }],
		);
		expect(out).toHaveLength(1);
		expect(out[0].json).toMatchObject({ status: 'SCHEDULED', scheduledAt: utc, totalRecipients: 3 });
		expect(out[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(posts('/api/sms/campaigns')).toHaveLength(1);
		const [stored] = [...emu.state.campaigns.values()];
		expect(stored).toMatchObject({ senderId: 'ACMEKE', manualNumbers: ['+254712345678', '+254722000111', '+254733000222'] });
	});

	it("Campaign → Create: the sender ID picker lists the account's sender IDs with no switch turned on", async () => {
		const parameters = { resource: 'campaign', operation: 'create', senderId: { __rl: true, mode: 'list', value: '' } };
		const found = await listSearch({ parameters, credentials: bothCredentials(emu.url), typeVersion: 2 }, 'searchSenderIds', 'acme');
		expect(found.results.map((r) => r.value)).toEqual(['ACMEKE']);
	});

	it('Campaign → Update: a new sender ID from the picker', async () => {
		const [created] = await runV2({ resource: 'campaign', name: 'A', message: 'Hi', senderId: { __rl: true, mode: 'id', value: 'ACMEKE' }, phoneNumber: '+254712345678' });
		const [updated] = await runV2({
			resource: 'campaign',
			operation: 'update',
			campaignId: { __rl: true, mode: 'id', value: String(created.json.id) },
			senderId: { __rl: true, mode: 'list', value: 'ACMEKE' },
			updateFields: { name: 'B' },
		});
		expect(updated.json).toMatchObject({ id: created.json.id, name: 'B', status: 'DRAFT' });
		expect(emu.control.requests().filter((r) => r.method === 'PATCH')).toHaveLength(1);
	});

	it('Chat Message: Send Template is the default operation and sends an approved template', async () => {
		await templateOp(emu.url, 'create', jsonTemplate('order_shipped', [{ type: 'BODY', text: 'Hi {{1}}.' }]));
		await waitUntil(async () => [...emu.state.templates.values()].find((t) => t.status === 'APPROVED'), 'approved');
		const out = await runV2({
			resource: 'chatMessage',
			phoneNumber: '+254712345678',
			template: { __rl: true, mode: 'list', value: 'order_shipped' },
			templateVariables: mapped({ body_1: 'Amina' }),
		});
		expect(out[0].json).toMatchObject({ accepted: true, type: 'template', templateName: 'order_shipped' });
		expect(posts('/api/chat/messages')).toHaveLength(1);
		expect(emu.control.chatMessages()[0].content).toEqual({
			name: 'order_shipped',
			language: { code: 'en' },
			components: [{ type: 'body', parameters: [{ type: 'text', text: 'Amina' }] }],
		});
	});

	it("SMS → Send: the output's length is the service's messageLength only (version 1 also has characters, the same count)", async () => {
		const parameters = { resource: 'sms', operation: 'send', phoneNumber: '+254712345678', message: 'Hi Zoë 😀', senderId: { __rl: true, mode: 'list', value: '' } };
		const [v2] = await runV2(parameters);
		expect(v2.json).toMatchObject({ accepted: true, encoding: 'Unicode', messageLength: 8 });
		expect(v2.json).not.toHaveProperty('characters');
		const [[v1]] = await executeNode({ parameters, credentials: bothCredentials(emu.url), typeVersion: 1 }, [{}]);
		expect(v1.json).toMatchObject({ messageLength: 8, characters: 8 });
	});

	it('Chat Message → Send still sends text', async () => {
		const out = await runV2({ resource: 'chatMessage', operation: 'send', phoneNumber: '+254712345678', text: 'Shipped' });
		expect(out[0].json).toMatchObject({ accepted: true, type: 'text' });
		expect(emu.control.chatMessages()).toHaveLength(1);
	});
});

describe('node version 2 error titles: Item N, what happened; the service\'s words and the request in the description', () => {
	it('a refused API key', async () => {
		const error = (await executeNode(
			{
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '+254712345678', message: 'Hi', senderId: { __rl: true, mode: 'list', value: '' } },
				credentials: apiKeyCredentials(emu.url, { plan: 'free', apiKey: 'svc_live_not_a_key' }),
				typeVersion: 2,
			},
			[{}],
		).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toBe('Item 0: The service refused the credential');
		expect(error.description).toMatch(/^The service said: .+\. Check the API key .*\(Request: POST \/api\/sms\/send-api → HTTP 401 UNAUTHORIZED\.\)$/);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('a service that cannot be reached (nothing listens at the Base URL)', async () => {
		const error = (await executeNode(
			{
				parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: '+254712345678', text: 'Hi' },
				credentials: apiKeyCredentials('http://127.0.0.1:9', { plan: 'free', apiKey: 'svc_live_x' }),
				typeVersion: 2,
			},
			[{}],
		).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toBe('Item 0: The service could not be reached');
		expect(error.description).toMatch(/^Nothing reached the service\. Check the Base URL .*\(Request: POST \/api\/chat\/messages → NETWORK_ERROR\.\)$/);
	});

	it("Send Bulk: a recipient the service refused is 'Item N: what happened (number)', its words in the description", async () => {
		const parameters = {
			resource: 'sms',
			operation: 'sendBulk',
			recipientsSource: 'items',
			phoneNumber: '={{ $json.phone }}',
			variablesSource: 'none',
			message: 'Hi',
			senderId: { __rl: true, mode: 'list', value: '' },
			options: { numberCheck: 'format' },
		};
		const items = [{ phone: '+254712345678' }, { phone: '+2547123' }];
		const [out] = await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), typeVersion: 2, settings: { onError: 'continueRegularOutput' } }, items);
		expect(out[1].json).toMatchObject({
			accepted: false,
			errorCode: 'INVALID_PHONE_NUMBER',
			errorMessage: 'Item 1: The service refused the phone number (+2547123)',
			errorDescription: expect.stringMatching(/^The service said: .+ \(INVALID_PHONE_NUMBER\)\.$/),
		});
		const error = (await executeNode({ parameters, credentials: apiKeyCredentials(emu.url), typeVersion: 2 }, items).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toBe('1 recipient(s) were not accepted (items 1); 1 were accepted');
		expect(error.description!.split('\n')[0]).toMatch(/^item 1: The service refused the phone number \(\+2547123\): \S/);
	});

	it('a refused sender ID names the sender ID and the number\'s country (Send, and a Send Bulk recipient); 0 messages to Ghana', async () => {
		const acmeke = { __rl: true, mode: 'id', value: 'ACMEKE' };
		const send = (await executeNode(
			{ parameters: { resource: 'sms', operation: 'send', phoneNumber: '+233241234567', message: 'Hi', senderId: acmeke }, credentials: apiKeyCredentials(emu.url), typeVersion: 2 },
			[{}],
		).catch((e: unknown) => e)) as Error;
		expect(send.message).toBe('Item 0: The service refused the sender ID "ACMEKE" for Ghana (+233241234567)');
		const bulk = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'none', message: 'Hi', senderId: acmeke, options: {} };
		const [out] = await executeNode({ parameters: bulk, credentials: apiKeyCredentials(emu.url), typeVersion: 2, settings: { onError: 'continueRegularOutput' } }, [{ phone: '+254712345678' }, { phone: '+233241234567' }]);
		expect(out[1].json).toMatchObject({ errorCode: 'INVALID_SENDER_ID', errorMessage: 'Item 1: The service refused the sender ID "ACMEKE" for Ghana (+233241234567)' });
		expect(emu.control.messages().filter((m) => m.phoneNumber === '+233241234567')).toHaveLength(0);
	});

	it("Campaign → Send Now of a cancelled campaign: 'Item N: what happened', the rule and the advice in the description", async () => {
		const [created] = await runV2({ resource: 'campaign', name: 'Spring sale', message: 'Hi', senderId: { __rl: true, mode: 'id', value: 'ACMEKE' }, phoneNumber: '+254712345678' });
		const campaignId = { __rl: true, mode: 'id', value: String(created.json.id) };
		await runV2({ resource: 'campaign', operation: 'cancel', campaignId });
		const error = (await runV2({ resource: 'campaign', operation: 'sendNow', campaignId }).catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toBe(`Item 0: Cannot send campaign "Spring sale" (ID ${String(created.json.id)}): it is CANCELLED`);
		expect(error.description).toMatch(/^Send Now is allowed only for DRAFT, SCHEDULED campaigns\. A cancelled campaign cannot be sent or changed again.* Nothing was changed\.$/);
	});

	it('version 1 keeps its titles', async () => {
		const error = (await executeNode(
			{
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '+254712345678', message: 'Hi', senderId: { __rl: true, mode: 'list', value: '' } },
				credentials: apiKeyCredentials(emu.url, { plan: 'free', apiKey: 'svc_live_not_a_key' }),
				typeVersion: 1,
			},
			[{}],
		).catch((e: unknown) => e)) as Error;
		expect(error.message).toMatch(/^POST \/api\/sms\/send-api failed: UNAUTHORIZED – /);
	});
});
