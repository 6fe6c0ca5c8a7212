/**
 * The two properties of sending at a plan's limit that must never regress: no 429 at
 * the plan's rate — against the emulator's sliding window, at most N requests in any 1,000 ms
 * — and Send Bulk's call count. Figures come from the emulator's request log, never
 * from timing on this side; the throughput figures themselves are `npm run bench`'s.
 */
import { SEED_KEYS } from '../emulator';
import { apiKeyCredentials, STRICT, type Plan } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { laneOf } from '../../nodes/SvcMessaging/transport/lanes';
import { limiterFor } from '../../nodes/SvcMessaging/transport/limiter';

// Delivery lifecycles far in the future: the emulator only answers requests here.
const emu = useEmulator({ timeScale: 1000, rateLimit: 'sliding-window' });

const noSender = { __rl: true, mode: 'list', value: '' };
const credentials = (apiKey: string, plan: Plan) => apiKeyCredentials(emu.url, { apiKey, plan, extra: STRICT });
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(20_000_000 + i)}` }));
const sends = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');

describe('no 429 at the plan rate', () => {
	it('a burst of 15 sends on a Free key (5 requests/s) gets no 429', async () => {
		const [out] = await executeNode(
			{
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'Code 123456', senderId: noSender, options: {} },
				credentials: credentials(SEED_KEYS.free, 'free'),
			},
			rows(15),
		);
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(15);
		expect(sends().map((r) => r.status)).toEqual(Array(15).fill(202));
	});

	it('45 sends on a Starter key (20 requests/s), two executions at once: no 429 against the sliding window', async () => {
		const send = (from: number, executionId: string) =>
			executeNode(
				{
					parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'Code 123456', senderId: noSender, options: {} },
					credentials: credentials(SEED_KEYS.starter, 'starter'),
					executionId,
				},
				Array.from({ length: 45 }, (_, i) => ({ phone: `+2547${String(from + i)}` })),
			);
		const [[a], [b]] = await Promise.all([send(21_000_000, 'starter-a'), send(22_000_000, 'starter-b')]);
		expect([...a, ...b].filter((item) => item.json.accepted === true)).toHaveLength(90);
		expect(sends().map((r) => r.status)).toEqual(Array(90).fill(202));
	});
});

describe('a pause of the event loop mid-send (a long GC, another workflow)', () => {
	// Requests that came due during the pause start closer together afterwards (the spacing is
	// 0.8 × 1000/N ms): the N slots, each held 1 s after its answer, must still keep N + 1 out of any
	// second, even when the emulator (in this process too) handles the queued requests at once.
	it('60 sends on a Starter key, the loop held 400 ms twice: every one accepted, no 429 against the sliding window', async () => {
		const holdLoop = (ms: number) => {
			const until = Date.now() + ms;
			while (Date.now() < until) {
				// busy on purpose: nothing else runs meanwhile
			}
		};
		const pauses = [setTimeout(() => holdLoop(400), 700), setTimeout(() => holdLoop(400), 1_600)];
		const [out] = await executeNode(
			{
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'Code 123456', senderId: noSender, options: {} },
				credentials: credentials(SEED_KEYS.starter, 'starter'),
			},
			rows(60),
		);
		pauses.forEach(clearTimeout);
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(60);
		expect(sends().map((r) => r.status)).toEqual(Array(60).fill(202));
	});
});

describe("Send Bulk makes ⌈items / the plan's recipients per call⌉ calls", () => {
	const bulk = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'none', message: 'Sale today', senderId: noSender, options: {} };

	it.each([
		{ plan: 'free', key: SEED_KEYS.free, items: 250, batches: [100, 100, 50] },
		{ plan: 'starter', key: SEED_KEYS.starter, items: 2_001, batches: [1000, 1000, 1] },
		{ plan: 'business', key: SEED_KEYS.business, items: 10_000, batches: [10_000] },
	])('$plan: $items items → $batches.length calls', async ({ plan, key, items, batches }) => {
		await emu.control.updateAccount('acc_demo', { credits: 100_000 });
		const [out] = await executeNode({ parameters: bulk, credentials: credentials(key, plan as Plan) }, rows(items));
		expect(out.filter((item) => item.json.accepted === true)).toHaveLength(items);
		expect(sends().map((r) => r.status)).toEqual(Array(batches.length).fill(202));
		const perBatch = new Map<string, number>();
		for (const m of emu.control.messages()) perBatch.set(m.batchId!, (perBatch.get(m.batchId!) ?? 0) + 1);
		expect([...perBatch.values()].sort((a, b) => b - a)).toEqual(batches);
	});
});

describe('Send Bulk under Retry On Fail', () => {
	it('a re-run of the same execution re-sends no accepted recipient (its ledger is consulted on re-runs only)', async () => {
		const bulk = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'none', message: 'Sale today', senderId: noSender, options: { numberCheck: 'format' } };
		const items = [{ phone: '+254712345678' }, { phone: '+2547123' }, { phone: '+254712345679' }];
		const setup = { parameters: bulk, credentials: credentials(SEED_KEYS.business, 'business'), executionId: 'limiter-retry', settings: { retryOnFail: true } };
		await expect(executeNode(setup, items)).rejects.toThrow(/1 recipient\(s\) were not accepted/);
		await expect(executeNode(setup, items)).rejects.toThrow(/not accepted/);
		// The second run sent only the rejected recipient again.
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual(['+254712345678', '+254712345679']);
		expect(sends().map((r) => r.status)).toEqual([202, 422]);
	});
});

describe('shared limiter', () => {
	it('waiting requests of two lanes take turns (an equal share each)', async () => {
		const limiter = await limiterFor('http://lanes.test', 'key-lanes', { requestsPerSecond: 1000, recipientsPerCall: 1 });
		const order: string[] = [];
		const run = (lane: string, n: number) =>
			Array.from({ length: n }, async (_, i) => await limiter.schedule(async () => order.push(`${lane}${i}`), lane));
		await Promise.all([...run('A', 6), ...run('B', 3)]);
		expect(order).toEqual(['A0', 'B0', 'A1', 'B1', 'A2', 'B2', 'A3', 'A4', 'A5']);
	});

	it('one lane is first come, first served; every key has its own limiter', async () => {
		const one = await limiterFor('http://lanes.test', 'key-fifo', { requestsPerSecond: 1000, recipientsPerCall: 1 });
		expect(await limiterFor('http://lanes.test', 'key-fifo', { requestsPerSecond: 1000, recipientsPerCall: 1 })).toBe(one);
		expect(await limiterFor('http://lanes.test', 'key-other', { requestsPerSecond: 1000, recipientsPerCall: 1 })).not.toBe(one);
		const order: number[] = [];
		await Promise.all(Array.from({ length: 8 }, async (_, i) => await one.schedule(async () => order.push(i))));
		expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
	});

	it("a lane is the node's execution and name", () => {
		const ctx = (executionId: string, name: string) => ({ getExecutionId: () => executionId, getNode: () => ({ name }) });
		expect(laneOf(ctx('1', 'SMS'))).toBe(laneOf(ctx('1', 'SMS')));
		expect(laneOf(ctx('1', 'SMS'))).not.toBe(laneOf(ctx('2', 'SMS')));
		expect(laneOf(ctx('1', 'SMS'))).not.toBe(laneOf(ctx('1', 'SMS 2')));
	});
});
