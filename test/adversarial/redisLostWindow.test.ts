/**
 * A send keeps a bounded window of requests in the key's limiter (sending/window.ts). When the
 * shared Redis is lost mid-run (the TCP proxy cuts every connection, Redis itself keeps its data),
 * the items not yet posted fail together, unsent, with the Redis error: no item opens a Redis
 * connection of its own. After Redis is back, the executions list's Retry sends exactly those items.
 * Everything is counted at the emulator: 0 numbers with two SMS, 0 numbers without one.
 */
import { executeNode } from '../helpers/n8n';
import { sendParameters, smsPerNumber } from '../sms/fixtures';
import { useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';

const bed = useRedisBehindProxy('window');

const ITEMS = 40;
const items = Array.from({ length: ITEMS }, (_, i) => ({ phone: `+2547130${String(i).padStart(5, '0')}` }));


it('Redis lost mid-run: the unposted items fail together without a connection each; Retry sends exactly them', async () => {
	const setup = { parameters: sendParameters(), credentials: bed.credentials(), settings: { onError: 'continueRegularOutput' as const }, executionId: 'window-1' };
	const started = Date.now();
	const run = executeNode(setup, items);
	// 40 sends at Free's 5/s take 8 s; the window holds 10 of them. Redis goes after about 2 s.
	await new Promise((r) => setTimeout(r, 2_000));
	const connectionsBefore = bed.proxy.connections();
	bed.proxy.setMode('cut');
	const [out] = await run;
	const attemptsWhileCut = bed.proxy.connections() - connectionsBefore;
	const ms = Date.now() - started;

	expect(out).toHaveLength(ITEMS);
	out.forEach((item, i) => expect(item.pairedItem).toEqual({ item: i }));
	const accepted = out.filter((item) => item.json.accepted === true);
	const failed = out.filter((item) => item.json.accepted !== true);
	expect(accepted.length).toBeGreaterThan(0);
	expect(failed.length).toBeGreaterThan(ITEMS / 2);
	for (const item of failed) {
		expect(item.json.errorCode).toBe('REDIS_UNAVAILABLE');
		expect(String(item.json.errorMessage)).toMatch(/Redis at 127\.0\.0\.1:\d+/);
	}
	// Only the Redis clients' own reconnects (about one a second while cut: 9-15 measured), never one
	// per failed item, which the reverted first window did.
	console.log(`Redis lost mid-run: ${failed.length} of ${ITEMS} failed unsent in ${ms} ms; ${attemptsWhileCut} Redis connection attempts while cut`);
	expect(attemptsWhileCut).toBeLessThan(failed.length);
	let counts = smsPerNumber(bed.emu);
	expect([...counts.keys()].sort()).toEqual(accepted.map((item) => String(item.json.phoneNumber)).sort());
	expect([...counts.values()].every((n) => n === 1)).toBe(true);

	// Redis is back (with its "under way" entries of the items that were never posted); the executions list's Retry.
	bed.proxy.setMode('open');
	const [retried] = await executeNode({ ...setup, executionId: 'window-2', mode: 'retry' }, items);
	expect(retried.every((item) => item.json.accepted === true)).toBe(true);
	expect(retried.filter((item) => item.json.alreadySent === true)).toHaveLength(accepted.length);
	counts = smsPerNumber(bed.emu);
	const twice = [...counts.values()].filter((n) => n > 1).length;
	const lost = items.filter(({ phone }) => !counts.has(phone)).length;
	expect({ twice, lost }).toEqual({ twice: 0, lost: 0 });
	recordCase('Redis lost mid-window, then Retry: unposted items fail together, Retry sends exactly them', { sentTwice: twice, lost, forgedAccepted: 0 });
}, 90_000);
