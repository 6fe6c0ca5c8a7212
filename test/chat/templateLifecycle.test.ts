/**
 * Chat Template → Get, Get Many, Delete against the emulator, and a template's review: PENDING →
 * APPROVED through the emulator's time scale, then sent with mapped variables.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { chatSend, errorOf, formTemplate, locator, mapped, OPTED_IN, OPTED_IN_NG, storedTemplate, templateOp, waitUntil } from './helpers';

// Review takes 2 s of emulator time: 200 ms here, long enough to see PENDING first.
// The review takes 2 s at this scale: long enough that a busy machine still sees the template PENDING before it sends.
const emu = useEmulator({ timeScale: 1 });

const templateGets = () => emu.control.requests().filter((r) => r.method === 'GET' && r.path === '/api/chat/templates');

/** Creates many templates in one node run (one per item), through the plan's rate limiter. */
async function createMany(templates: Array<{ name: string; category?: string; language?: string }>) {
	const out = await executeNode(
		{
			parameters: {
				resource: 'chatTemplate',
				operation: 'create',
				templateName: '={{ $json.name }}',
				category: '={{ $json.category }}',
				language: '={{ $json.language }}',
				componentsSource: 'form',
				bodyText: 'Hello {{1}}.',
			},
			credentials: apiKeyCredentials(emu.url),
		},
		templates.map((t) => ({ category: 'UTILITY', language: 'en', ...t })),
	);
	expect(out[0]).toHaveLength(templates.length);
}

describe('review lifecycle', () => {
	it('goes PENDING → APPROVED through the review, and is then sent with variables mapped from the items', async () => {
		await templateOp(
			emu.url,
			'create',
			formTemplate('delivery_eta', { headerFormat: 'TEXT', headerText: 'Delivery {{1}}', bodyText: 'Hi {{1}}, your parcel arrives {{2}}.' }),
		);
		const get = () => templateOp(emu.url, 'get', { template: locator('delivery_eta') });
		const [[pending]] = await get();
		expect(pending.json).toMatchObject({ name: 'delivery_eta', status: 'PENDING', rejectedReason: null, approvedAt: null });

		const sendParameters = {
			phoneNumber: '={{ $json.phone }}',
			messageType: 'template',
			template: locator('delivery_eta'),
			templateVariables: mapped({ header_1: '={{ $json.ref }}', body_1: '={{ $json.first }}', body_2: '={{ $json.when }}' }),
		};
		const items = [
			{ phone: OPTED_IN, ref: 'D-17', first: 'Wanjiru', when: 'tomorrow' },
			{ phone: OPTED_IN_NG, ref: 'D-18', first: 'Tunde', when: 'on Friday' },
		];
		const early = await errorOf(chatSend(emu.url, sendParameters, items));
		expect(early.message).toBe('Item 0: Template "delivery_eta" is PENDING: only APPROVED templates can be sent');
		expect(early.description).toBe('Review takes a while after Create; "Chat Template → Get" shows the status.');
		expect(emu.control.chatMessages()).toHaveLength(0);

		const approved = await waitUntil(async () => {
			const [[out]] = await get();
			return out.json.status === 'APPROVED' ? out.json : undefined;
		}, 'approval');
		expect(approved).toMatchObject({ status: 'APPROVED', rejectedReason: null, approvedAt: expect.any(String) });
		expect(Date.parse(approved.approvedAt as string)).toBeGreaterThanOrEqual(Date.parse(pending.json.createdAt as string));

		const out = await chatSend(emu.url, sendParameters, items);
		expect(out[0].map((o) => o.json.accepted)).toEqual([true, true]);
		expect(emu.control.chatMessages().map((m) => [m.phoneNumber, m.content])).toEqual([
			[
				OPTED_IN,
				{
					name: 'delivery_eta',
					language: { code: 'en' },
					components: [
						{ type: 'header', parameters: [{ type: 'text', text: 'D-17' }] },
						{ type: 'body', parameters: [{ type: 'text', text: 'Wanjiru' }, { type: 'text', text: 'tomorrow' }] },
					],
				},
			],
			[
				OPTED_IN_NG,
				{
					name: 'delivery_eta',
					language: { code: 'en' },
					components: [
						{ type: 'header', parameters: [{ type: 'text', text: 'D-18' }] },
						{ type: 'body', parameters: [{ type: 'text', text: 'Tunde' }, { type: 'text', text: 'on Friday' }] },
					],
				},
			],
		]);
	});

	it('shows the reason of a rejected template', async () => {
		await templateOp(emu.url, 'create', formTemplate('promo_reject_me', { category: 'MARKETING' }));
		const rejected = await waitUntil(async () => {
			const [[out]] = await templateOp(emu.url, 'get', { template: locator('promo_reject_me', 'name') });
			return out.json.status !== 'PENDING' ? out.json : undefined;
		}, 'review');
		expect(rejected).toMatchObject({
			status: 'REJECTED',
			rejectedReason: 'The template does not comply with the platform messaging policy',
			approvedAt: null,
		});
	});

	it('Get of an unknown template says so', async () => {
		const error = await errorOf(templateOp(emu.url, 'get', { template: locator('nope', 'name') }));
		expect(error.message).toBe("GET /api/chat/templates/nope failed: NOT_FOUND – Template 'nope' not found");
		expect(error.description).toBe('Nothing with this identifier exists for this account.');
	});
});

describe('Get Many', () => {
	const getMany = (parameters: IDataObject) => templateOp(emu.url, 'getAll', parameters);

	it('Return All reads every page and no more', async () => {
		await createMany(Array.from({ length: 130 }, (_, k) => ({ name: `t_${k}` })));
		emu.control.clearRequests();
		const [all] = await getMany({ returnAll: true });
		expect(all).toHaveLength(130);
		expect(new Set(all.map((o) => o.json.name)).size).toBe(130);
		expect(templateGets()).toHaveLength(2);
		expect(all.every((o) => o.pairedItem && (o.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('a Limit reads only the pages it needs', async () => {
		await createMany(Array.from({ length: 130 }, (_, k) => ({ name: `t_${k}` })));
		emu.control.clearRequests();
		const [thirty] = await getMany({ returnAll: false, limit: 30 });
		expect(thirty).toHaveLength(30);
		expect(templateGets()).toHaveLength(1);

		emu.control.clearRequests();
		const [hundred] = await getMany({ returnAll: false, limit: 100 });
		expect(hundred).toHaveLength(100);
		expect(templateGets()).toHaveLength(1);

		emu.control.clearRequests();
		const [more] = await getMany({ returnAll: false, limit: 500 });
		expect(more).toHaveLength(130);
		expect(templateGets()).toHaveLength(2);
	});

	it('filters by status, category and language', async () => {
		await createMany([
			{ name: 'a_en', category: 'MARKETING', language: 'en' },
			{ name: 'b_sw', category: 'MARKETING', language: 'sw' },
			{ name: 'c_en', category: 'UTILITY', language: 'en' },
			{ name: 'd_reject_sw', category: 'MARKETING', language: 'sw' },
		]);
		await waitUntil(async () => [...emu.state.templates.values()].every((t) => t.status !== 'PENDING'), 'reviews');
		const names = async (filters: IDataObject) => (await getMany({ returnAll: true, filters }))[0].map((o) => o.json.name).sort();
		expect(await names({ category: 'MARKETING' })).toEqual(['a_en', 'b_sw', 'd_reject_sw']);
		expect(await names({ language: 'SW' })).toEqual(['b_sw', 'd_reject_sw']);
		expect(await names({ status: 'REJECTED' })).toEqual(['d_reject_sw']);
		expect(await names({ status: 'APPROVED', category: 'MARKETING', language: 'sw' })).toEqual(['b_sw']);
		expect(await names({ category: 'SERVICE' })).toEqual([]);
	});
});

describe('Delete', () => {
	it('returns { deleted: true, name } and the template is gone', async () => {
		await templateOp(emu.url, 'create', formTemplate('old_promo'));
		const [[out]] = await templateOp(emu.url, 'delete', { template: locator('old_promo') });
		expect(out.json).toEqual({ deleted: true, name: 'old_promo' });
		expect(storedTemplate(emu, 'old_promo')).toBeUndefined();
		const again = await errorOf(templateOp(emu.url, 'delete', { template: locator('old_promo', 'name') }));
		expect(again.message).toBe("DELETE /api/chat/templates/old_promo failed: NOT_FOUND – Template 'old_promo' not found");
	});

	it('deletes one template per item, reporting failures per item with Continue On Fail', async () => {
		await createMany([{ name: 'x1' }, { name: 'x2' }]);
		const out = await executeNode(
			{
				parameters: { resource: 'chatTemplate', operation: 'delete', template: locator('={{ $json.name }}', 'name') },
				credentials: apiKeyCredentials(emu.url),
				settings: { onError: 'continueRegularOutput' },
			},
			[{ name: 'x1' }, { name: 'missing' }, { name: 'x2' }],
		);
		expect(out[0].map((o) => o.json)).toEqual([
			{ deleted: true, name: 'x1' },
			expect.objectContaining({ error: "DELETE /api/chat/templates/missing failed: NOT_FOUND – Template 'missing' not found" }),
			{ deleted: true, name: 'x2' },
		]);
		expect(emu.state.templates.size).toBe(0);
	});
});
