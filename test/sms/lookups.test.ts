import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, listSearch } from '../helpers/n8n';
import { apiKeyCredentials, sendBulkParameters, sendParameters, waitFor } from './fixtures';

const emu = useEmulator();

describe('SMS lookups and Sender IDs', () => {
	it('Get Message follows a message to its final status', async () => {
		const [[sentItem]] = await executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: '+254712345678' }]);
		const get = async () =>
			(await executeNode(
				{ parameters: { resource: 'sms', operation: 'getMessage', messageId: '={{ $json.messageId }}' }, credentials: apiKeyCredentials(emu.url) },
				[sentItem.json],
			))[0][0];
		const item = await waitFor('the message to be DELIVERED', async () => ((i) => i.json.status === 'DELIVERED' && i)(await get()), 10_000, 25);
		expect(item.json).toMatchObject({ messageId: sentItem.json.messageId, phoneNumber: '+254712345678', status: 'DELIVERED', segments: 1 });
		expect(typeof item.json.deliveredAt).toBe('string');
	});

	it('Get Batch returns the counts of a bulk send', async () => {
		const [out] = await executeNode(
			{
				parameters: sendBulkParameters({ variablesSource: 'none', message: 'hi' }),
				credentials: apiKeyCredentials(emu.url),
			},
			[{ phone: '+254712345678' }, { phone: '+254712345999' }],
		);
		const get = async () =>
			(await executeNode(
				{ parameters: { resource: 'sms', operation: 'getBatch', batchId: out[0].json.batchId }, credentials: apiKeyCredentials(emu.url) },
				[{}],
			))[0][0];
		const batch = await waitFor('the batch to be COMPLETED', async () => ((i) => i.json.status === 'COMPLETED' && i)(await get()), 10_000, 25);
		expect(batch.json).toMatchObject({ batchId: out[0].json.batchId, status: 'COMPLETED', total: 2, delivered: 1, failed: 1 });
	});

	it('Get Message reports 404 NOT_FOUND for an unknown id, with Continue On Fail as an error item', async () => {
		const [out] = await executeNode(
			{
				parameters: { resource: 'sms', operation: 'getMessage', messageId: 'msg_does_not_exist' },
				credentials: apiKeyCredentials(emu.url),
				settings: { onError: 'continueRegularOutput' },
			},
			[{}],
		);
		expect(out[0].json.error).toMatch(/NOT_FOUND/);
		expect(out[0].pairedItem).toEqual({ item: 0 });
	});

	it('Get Delivery Rates returns the analytics of a period', async () => {
		const [out] = await executeNode(
			{
				parameters: { resource: 'sms', operation: 'getDeliveryRates', filters: { startDate: '2026-01-01T00:00:00', endDate: '2026-12-31T00:00:00' } },
				credentials: apiKeyCredentials(emu.url),
			},
			[{}],
		);
		expect(out[0].json).toMatchObject({ period: '2026-01-01/2026-12-31' });
		for (const key of ['totalSent', 'delivered', 'failed', 'expired', 'deliveryRate']) expect(typeof out[0].json[key]).toBe('number');
	});

	it('Sender ID → Get Many lists approved sender IDs, filterable by country', async () => {
		const [all] = await executeNode(
			{ parameters: { resource: 'senderId', operation: 'getAll', returnAll: true, filters: {} }, credentials: apiKeyCredentials(emu.url) },
			[{}],
		);
		expect(all.map((i) => i.json.senderId)).toEqual(expect.arrayContaining(['SVCTEST', 'ACMEKE', '20880']));
		const [ghana] = await executeNode(
			{ parameters: { resource: 'senderId', operation: 'getAll', returnAll: true, filters: { country: 'GH' } }, credentials: apiKeyCredentials(emu.url) },
			[{}],
		);
		expect(ghana.map((i) => i.json.senderId)).toEqual(['SVCTEST']);
		const [limited] = await executeNode(
			{ parameters: { resource: 'senderId', operation: 'getAll', returnAll: false, limit: 1, filters: {} }, credentials: apiKeyCredentials(emu.url) },
			[{}],
		);
		expect(limited).toHaveLength(1);
	});

	it('the sender ID picker searches the listing', async () => {
		const result = await listSearch({ parameters: { resource: 'sms', operation: 'send' }, credentials: apiKeyCredentials(emu.url) }, 'searchSenderIds', 'acme');
		expect(result.results).toEqual([{ name: expect.stringContaining('ACMEKE'), value: 'ACMEKE' }]);
	});
});
