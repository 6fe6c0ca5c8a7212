/**
 * The send ledger in a Redis partition. A real redis-server behind our TCP proxy (redisBehindProxy.ts);
 * Redis is cut in the middle of a run, after some posts were accepted and while others are still at
 * the service. Then the executions list's Retry runs on "another worker": this process's ledger,
 * limiters and Redis clients are forgotten first. Counted at the emulator: nobody gets a message
 * twice, and every item ends accepted, refused as of unknown outcome, or failed unsent with the
 * Redis error. The same with a slow Redis (every chunk held back): no hang, nothing twice.
 */
import Redis from 'ioredis';
import type { INodeExecutionData } from 'n8n-workflow';

import { executeNode, type NodeSetup } from '../helpers/n8n';
import { waitFor } from '../helpers/waitFor';
import { sendParameters } from '../sms/fixtures';
import { freshWorker, useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';

const bed = useRedisBehindProxy('partition', { plan: 'starter' });
const emu = bed.emu;

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + i).padStart(8, '0')}` }));

function setup(executionId: string, mode?: NodeSetup['mode']): NodeSetup {
	return { parameters: sendParameters(), credentials: bed.credentials(), executionId, mode, settings: { onError: 'continueRegularOutput' } };
}

/** Messages the service got more than once for one recipient. */
function sentTwice(): number {
	const counts = new Map<string, number>();
	for (const m of emu.control.messages()) counts.set(m.phoneNumber, (counts.get(m.phoneNumber) ?? 0) + 1);
	return [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
}

/** Input items with no output item of their own (pairedItem). */
function lost(items: object[], out: INodeExecutionData[]): number {
	const answered = new Set(out.map((item) => (item.pairedItem as { item: number }).item));
	return items.filter((_, i) => !answered.has(i)).length;
}

type Fate = 'accepted' | 'alreadySent' | 'unknownOutcome' | 'redisError' | 'other';

function fateOf(item: INodeExecutionData): Fate {
	if (item.json.accepted === true) return item.json.alreadySent === true ? 'alreadySent' : 'accepted';
	const message = String(item.json.errorMessage);
	if (/earlier try may already have sent this message/.test(message)) return 'unknownOutcome';
	if (/Redis at 127\.0\.0\.1:\d+/.test(message)) return 'redisError';
	return 'other';
}

const tally = (out: INodeExecutionData[]) => out.reduce((m, item) => m.set(fateOf(item), (m.get(fateOf(item)) ?? 0) + 1), new Map<Fate, number>());

it('Redis cut mid-run, then a Retry on a fresh worker: 0 sent twice, nothing lost', async () => {
	const items = phones(61_000_000, 100);
	// Each send is held 600 ms at the service before it is processed: when Redis goes away, some
	// sends are recorded, some are at the service (accepted after the cut: their record fails).
	emu.control.addFault({ kind: 'slow', delayMs: 600, count: 100, pathPrefix: '/api/sms/send-api' });
	const running = executeNode(setup('partition-a'), items);
	await waitFor('30 messages at the service', () => emu.control.messages().length >= 30, 30_000, 5);
	bed.proxy.setMode('cut');
	const [first] = await running;
	emu.control.clearFaults();

	expect(first).toHaveLength(100);
	const firstFates = tally(first);
	expect(firstFates.get('other') ?? 0).toBe(0);
	expect(firstFates.get('redisError')).toBeGreaterThan(0);
	const acceptedFirst = first.filter((item) => item.json.accepted === true).map((item) => String(item.json.phoneNumber));
	// Exactly the accepted items reached the service.
	expect(emu.control.messages().map((m) => m.phoneNumber).sort()).toEqual(acceptedFirst.sort());

	bed.proxy.setMode('open');
	await freshWorker();
	// What the service has before the Retry (the Retry may now send items the first run never started).
	const atService = new Set(emu.control.messages().map((m) => m.phoneNumber));
	const [retry] = await executeNode(setup('partition-b', 'retry'), items);
	expect(retry).toHaveLength(100);
	const fates = tally(retry);
	expect(fates.get('other') ?? 0).toBe(0);
	// Every message the service had is reported (already sent, or of unknown outcome): none again.
	const unrecorded = retry.filter((item, i) => atService.has(items[i].phone) && fateOf(item) === 'unknownOutcome');
	for (const [i, item] of retry.entries()) {
		if (atService.has(items[i].phone)) expect(['alreadySent', 'unknownOutcome']).toContain(fateOf(item));
	}
	// The partition really left accepted sends unrecorded (before the fix the Retry sent them again).
	expect(unrecorded.length).toBeGreaterThan(0);
	expect(fates.get('alreadySent')).toBeGreaterThan(0);
	const twice = sentTwice();
	expect(twice).toBe(0);
	const lostItems = lost(items, first) + lost(items, retry);
	expect(lostItems).toBe(0);
	recordCase(
		`Redis cut mid-run, Retry on a fresh worker (${acceptedFirst.length} accepted, ${unrecorded.length} of them unrecorded and refused as unknown)`,
		{ sentTwice: twice, lost: lostItems, forgedAccepted: 0 },
	);
}, 120_000);

it('a slow Redis (200 ms per chunk): the run and its Retry finish, 0 sent twice, nothing lost', async () => {
	await freshWorker();
	bed.proxy.setMode('slow', 200);
	const before = emu.control.messages().length;
	const items = phones(62_000_000, 12);
	// One send answers 500 (it may have been processed): the run fails, and its Retry must decide.
	emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api', count: 1 });
	const started = Date.now();
	const failed = await executeNode({ ...setup('slow-a'), settings: undefined }, items).then(
		() => undefined,
		(error: Error) => error,
	);
	await freshWorker();
	const [retry] = await executeNode(setup('slow-b', 'retry'), items);
	const seconds = (Date.now() - started) / 1000;
	bed.proxy.setMode('open');

	expect(failed?.message).toMatch(/1 message\(s\) were not accepted .*11 were accepted/);
	expect(seconds).toBeLessThan(100);
	const fates = tally(retry);
	expect(fates.get('alreadySent')).toBe(11);
	expect(fates.get('unknownOutcome')).toBe(1);
	expect(emu.control.messages().length - before).toBe(11);
	const twice = sentTwice();
	expect(twice).toBe(0);
	const lostItems = lost(items, retry);
	expect(lostItems).toBe(0);
	recordCase(`Redis slow (200 ms per chunk): a failed run and its Retry in ${Math.round(seconds)} s`, { sentTwice: twice, lost: lostItems, forgedAccepted: 0 });
}, 120_000);

it('the "under way" write refused by Redis: nothing is posted, every item fails unsent with the Redis error', async () => {
	await freshWorker();
	// A Redis user that may use the shared limit (Bottleneck's keys and channels, the pause and the round trips' shrink;
	// the ledger's mark is made in the limiter's slot) and read the do-not-send list (checked first), but
	// not write the send ledger's entries.
	const admin = new Redis({ host: '127.0.0.1', port: bed.redis.port, password: bed.password });
	await admin.call('ACL', 'SETUSER', 'no-ledger', 'on', '>no-ledger-pw-0001', '~b_*', `~${bed.prefix}:pause:*`, `~${bed.prefix}:shrink*`, `~${bed.prefix}:do-not-send`, '&*', '+@all');
	admin.disconnect();
	const before = emu.control.messages().length;
	const items = phones(63_000_000, 5);
	const limited = bed.credentials({ redis: { port: bed.proxy.port, user: 'no-ledger', password: 'no-ledger-pw-0001' } });
	const [out] = await executeNode({ ...setup('refused-a'), credentials: limited }, items);

	expect(emu.control.messages().length - before).toBe(0);
	expect(out).toHaveLength(5);
	for (const item of out) {
		expect(item.json.accepted).toBe(false);
		expect(String(item.json.errorMessage)).toMatch(/Lost the connection to Redis at 127\.0\.0\.1:\d+ .*, which holds the send ledger/);
		expect(String(item.json.errorDescription)).toMatch(/Nothing was sent for this item/);
	}
	const twice = sentTwice();
	expect(twice).toBe(0);
	const lostItems = lost(items, out);
	expect(lostItems).toBe(0);
	recordCase('Redis refuses the send ledger\'s "under way" write: nothing posted, every item fails unsent', { sentTwice: twice, lost: lostItems, forgedAccepted: 0 });
}, 60_000);
