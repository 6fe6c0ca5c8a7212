import { getBalance } from '../../nodes/SvcMessaging/api/account';
import { cancelCampaign, createCampaign, deleteCampaign, getCampaign, listCampaignsPage, sendCampaignNow, updateCampaign } from '../../nodes/SvcMessaging/api/campaigns';
import { createTemplate, deleteTemplate, getTemplate, listTemplatesPage, sendChatMessage } from '../../nodes/SvcMessaging/api/chat';
import { readPages, type Page } from '../../nodes/SvcMessaging/api/pages';
import { getBatch, getDeliveryRates, getMessage, listSenderIds, sendSms } from '../../nodes/SvcMessaging/api/sms';
import { accountCredential, API_KEY, fakeContext } from './fakeContext';

const BOTH = { ...API_KEY, ...accountCredential('http://svc.test/') };

describe('api/: one function per endpoint', () => {
	it.each([
		['sendSms', (c: never) => sendSms(c, { phoneNumber: '+254712345678', message: 'hi' }), 'POST', '/api/sms/send-api', 'svcMessagingApi'],
		['getMessage', (c: never) => getMessage(c, 'm/1'), 'GET', '/api/sms/messages/m%2F1', 'svcMessagingApi'],
		['getBatch', (c: never) => getBatch(c, 'b1'), 'GET', '/api/sms/batches/b1', 'svcMessagingApi'],
		['getDeliveryRates', (c: never) => getDeliveryRates(c, { startDate: '2030-01-01' }), 'GET', '/api/sms/analytics/delivery-rates', 'svcMessagingApi'],
		['listSenderIds', (c: never) => listSenderIds(c), 'GET', '/api/sms/sender-ids', 'svcMessagingApi'],
		['sendChatMessage', (c: never) => sendChatMessage(c, { type: 'text' }), 'POST', '/api/chat/messages', 'svcMessagingApi'],
		['createTemplate', (c: never) => createTemplate(c, { name: 'x' }), 'POST', '/api/chat/templates', 'svcMessagingApi'],
		['getTemplate', (c: never) => getTemplate(c, 'order update'), 'GET', '/api/chat/templates/order%20update', 'svcMessagingApi'],
		['deleteTemplate', (c: never) => deleteTemplate(c, 'x'), 'DELETE', '/api/chat/templates/x', 'svcMessagingApi'],
		['listTemplatesPage', (c: never) => listTemplatesPage(c, { page: 2, limit: 10 }), 'GET', '/api/chat/templates', 'svcMessagingApi'],
		['createCampaign', (c: never) => createCampaign(c, { name: 'x' }), 'POST', '/api/sms/campaigns', 'svcMessagingAccountApi'],
		['getCampaign', (c: never) => getCampaign(c, '7'), 'GET', '/api/sms/campaigns/7', 'svcMessagingAccountApi'],
		['updateCampaign', (c: never) => updateCampaign(c, '7', { name: 'y' }), 'PATCH', '/api/sms/campaigns/7', 'svcMessagingAccountApi'],
		['deleteCampaign', (c: never) => deleteCampaign(c, '7'), 'DELETE', '/api/sms/campaigns/7', 'svcMessagingAccountApi'],
		['sendCampaignNow', (c: never) => sendCampaignNow(c, '7'), 'POST', '/api/sms/campaigns/7/send', 'svcMessagingAccountApi'],
		['cancelCampaign', (c: never) => cancelCampaign(c, '7'), 'POST', '/api/sms/campaigns/7/cancel', 'svcMessagingAccountApi'],
		['listCampaignsPage', (c: never) => listCampaignsPage(c, 1, 10), 'GET', '/api/sms/campaigns', 'svcMessagingAccountApi'],
		['getBalance', (c: never) => getBalance(c), 'GET', '/api/account/balance', 'svcMessagingAccountApi'],
	])('%s calls %s %s with its credential', async (_name, call, method, path, credentialType) => {
		const { ctx, requests } = fakeContext({ credentials: BOTH });
		await call(ctx as never);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method, url: `http://svc.test${path}`, credentialType });
	});

	it('unwraps the { success, data } envelope; campaign answers stay as they are', async () => {
		const { ctx } = fakeContext({
			credentials: BOTH,
			answer: (r) => ({ body: r.url.includes('campaigns') ? { id: 7, name: 'c' } : { success: true, data: { messageId: 'm1' } } }),
		});
		expect(await getMessage(ctx, 'm1')).toEqual({ messageId: 'm1' });
		expect(await getCampaign(ctx, '7')).toEqual({ id: 7, name: 'c' });
	});

	it('reads each credential once per node run, however many requests it makes', async () => {
		const { ctx, credentialReads, requests } = fakeContext({ credentials: BOTH });
		await Promise.all([getMessage(ctx, 'a'), getMessage(ctx, 'b'), getBatch(ctx, 'c'), getBalance(ctx), getCampaign(ctx, '1')]);
		expect(requests).toHaveLength(5);
		expect(credentialReads.sort()).toEqual(['svcMessagingAccountApi', 'svcMessagingApi']);
	});

	it('a campaign page without totalPages ends at a short page', async () => {
		const { ctx } = fakeContext({ credentials: BOTH, answer: () => ({ body: { data: [{ id: 1 }] } }) });
		expect(await listCampaignsPage(ctx, 3, 10)).toEqual({ data: [{ id: 1 }], page: 3, totalPages: 3 });
	});
});

describe('api/pages.ts: the one paging loop', () => {
	const pages = (rows: number[][]) => {
		const read: number[] = [];
		const reader = async (page: number): Promise<Page> => {
			read.push(page);
			return { data: (rows[page - 1] ?? []).map((id) => ({ id })), page, totalPages: rows.length };
		};
		return { read, reader };
	};

	it('reads until enough rows are kept, and says which page is next', async () => {
		const { read, reader } = pages([[1, 2], [3, 4], [5, 6]]);
		const { rows, next } = await readPages(reader, { pageSize: 2, enough: (kept) => kept.length >= 3 });
		expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
		expect(read).toEqual([1, 2]);
		expect(next).toBe(3);
	});

	it('stops at the last page with no next page', async () => {
		const { read, reader } = pages([[1], [2]]);
		expect(await readPages(reader, { pageSize: 1, enough: () => false })).toEqual({ rows: [{ id: 1 }, { id: 2 }] });
		expect(read).toEqual([1, 2]);
	});

	it('keeps only matching rows, skips rows seen on an earlier page, and honours maxPages and from', async () => {
		const { read, reader } = pages([[1, 2], [2, 3], [4, 5], [6, 7]]);
		const result = await readPages(reader, { from: 2, pageSize: 2, idOf: (r) => r.id, keep: (r) => Number(r.id) % 2 === 1, enough: () => false, maxPages: 2 });
		expect(result).toEqual({ rows: [{ id: 3 }, { id: 5 }], next: 4 });
		expect(read).toEqual([2, 3]);
	});

	it('stops at an empty page even when the service says there are more', async () => {
		const reader = async (page: number): Promise<Page> => ({ data: [], page, totalPages: 99 });
		expect(await readPages(reader, { pageSize: 10, enough: () => false })).toEqual({ rows: [] });
	});
});
