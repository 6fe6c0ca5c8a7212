import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { listSearch } from '../helpers/n8n';
import { byId, createParameters, credentials, requests, run } from './helpers';

// The campaigns are created once for the whole file; each test only reads them.
const emu = useEmulator({ resetEachTest: false });
const TOTAL = 230;

beforeAll(async () => {
	// One node run, one campaign per input item: "Campaign 1" … "Campaign 230" (ids 1 … 230).
	const items = Array.from({ length: TOTAL }, (_, n) => ({ n: n + 1 }));
	const created = await run(emu.url, createParameters({ name: '={{ "Campaign " + $json.n }}' }), items);
	expect(created).toHaveLength(TOTAL);
	// A few campaigns in other statuses, for the status filter.
	for (const id of [3, 5, 200]) await run(emu.url, { operation: 'cancel', campaignId: byId(id) });
});
beforeEach(() => {
	emu.control.clearRequests();
});

const listGets = () => requests(emu, 'GET', '/api/sms/campaigns');

async function getMany(parameters: IDataObject) {
	return (await run(emu.url, { operation: 'getAll', ...parameters })).map((o) => o.json);
}

describe('Campaign → Get Many', () => {
	it('Return All reads every page (100 per request), most recent first', async () => {
		const all = await getMany({ returnAll: true });
		expect(all).toHaveLength(TOTAL);
		expect(all.map((c) => c.id)).toEqual(Array.from({ length: TOTAL }, (_, n) => TOTAL - n));
		expect(all[0]).toMatchObject({ name: 'Campaign 230', status: 'DRAFT', totalRecipients: 2, cost: 0 });
		expect(listGets()).toHaveLength(3);
	});

	it.each([
		[5, 1],
		[100, 1],
		[101, 2],
		[150, 2],
		[201, 3],
	])('Limit %i returns that many and makes %i request(s)', async (limit, expectedRequests) => {
		const some = await getMany({ returnAll: false, limit });
		expect(some).toHaveLength(limit);
		expect(some[0].id).toBe(TOTAL);
		expect(some[limit - 1].id).toBe(TOTAL - limit + 1);
		expect(listGets()).toHaveLength(expectedRequests);
	});

	it('a Limit above the number of campaigns stops at the last page', async () => {
		expect(await getMany({ returnAll: false, limit: 1000 })).toHaveLength(TOTAL);
		expect(listGets()).toHaveLength(3);
	});

	it('the Status filter reads pages only until Limit campaigns match', async () => {
		const one = await getMany({ returnAll: false, limit: 1, filters: { status: ['CANCELLED'] } });
		expect(one.map((c) => [c.id, c.status])).toEqual([[200, 'CANCELLED']]);
		expect(listGets()).toHaveLength(1);
		emu.control.clearRequests();
		const all = await getMany({ returnAll: true, filters: { status: ['CANCELLED'] } });
		expect(all.map((c) => c.id)).toEqual([200, 5, 3]);
		expect(listGets()).toHaveLength(3);
	});

	it('a Limit below 1 is refused before any request', async () => {
		const error = await run(emu.url, { operation: 'getAll', returnAll: false, limit: 0 }).catch((e: Error) => e);
		expect((error as Error).message).toBe('Item 0: "Limit" must be a whole number of 1 or more');
		expect(listGets()).toHaveLength(0);
	});

	it('runs once per input item', async () => {
		const out = await run(emu.url, { operation: 'getAll', returnAll: false, limit: 2 }, [{}, {}]);
		expect(out.map((o) => [o.json.id, o.pairedItem])).toEqual([
			[230, { item: 0 }],
			[229, { item: 0 }],
			[230, { item: 1 }],
			[229, { item: 1 }],
		]);
	});
});

describe('Campaign picker (searchCampaigns)', () => {
	const setup = () => ({ parameters: { resource: 'campaign', operation: 'get' }, credentials: credentials(emu.url) });

	it('lists the most recent first with name, status and ID, one page per call', async () => {
		const first = await listSearch(setup(), 'searchCampaigns');
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({ name: 'Campaign 230 · DRAFT · #230', value: '230' });
		expect(first.results.find((r) => r.value === '200')?.name).toBe('Campaign 200 · CANCELLED · #200');
		expect(first.paginationToken).toBe('2');
		const second = await listSearch(setup(), 'searchCampaigns', undefined, first.paginationToken as string);
		expect(second.results[0].value).toBe('130');
		expect(second.paginationToken).toBe('3');
		const last = await listSearch(setup(), 'searchCampaigns', undefined, second.paginationToken as string);
		expect(last.results).toHaveLength(30);
		expect(last.paginationToken).toBeUndefined();
		expect(listGets()).toHaveLength(3);
	});

	it('filters by name or ID across pages', async () => {
		const byName = await listSearch(setup(), 'searchCampaigns', 'campaign 7');
		expect(byName.results.map((r) => r.value)).toEqual(['79', '78', '77', '76', '75', '74', '73', '72', '71', '70', '7']);
		expect(byName.paginationToken).toBeUndefined();
		const byNumber = await listSearch(setup(), 'searchCampaigns', '#42');
		expect(byNumber.results).toEqual([{ name: 'Campaign 42 · DRAFT · #42', value: '42' }]);
	});

	it('a picked campaign is used by Get', async () => {
		const { results } = await listSearch(setup(), 'searchCampaigns', 'campaign 120');
		const [item] = await run(emu.url, { operation: 'get', campaignId: { __rl: true, mode: 'list', value: results[0].value } });
		expect(item.json).toMatchObject({ id: 120, name: 'Campaign 120' });
	});
});
