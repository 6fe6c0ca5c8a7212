/**
 * The send ledger marks messages "under way" in the shared Redis just before each is posted, not the
 * whole list up front. When Redis is lost mid-run, the items never started are not marked: a Retry
 * on another worker (this process's ledger forgotten, as after a restart) sends them, instead of
 * refusing them as "unknown outcome". Only requests already handed to the key's limiter when Redis
 * went (at most one window: sending/window.ts) can stay marked, and are refused, never sent twice.
 * Counted at the emulator.
 */
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendWindow } from '../../nodes/SvcMessaging/sending/window';
import { PLANS } from '../../nodes/SvcMessaging/transport/service';
import { executeNode } from '../helpers/n8n';
import { sendParameters, smsPerNumber } from '../sms/fixtures';
import { useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';

const bed = useRedisBehindProxy('other-worker');

const ITEMS = 40;
const items = Array.from({ length: ITEMS }, (_, i) => ({ phone: `+2547131${String(i).padStart(5, '0')}` }));

it('Redis lost mid-run, then Retry on another worker: the items never started are sent, none twice', async () => {
	const setup = { parameters: sendParameters(), credentials: bed.credentials(), settings: { onError: 'continueRegularOutput' as const }, executionId: 'other-1' };
	const run = executeNode(setup, items);
	// 40 sends at Free's 5/s take 8 s; Redis goes after about 2 s.
	await new Promise((r) => setTimeout(r, 2_000));
	bed.proxy.setMode('cut');
	const [out] = await run;
	const failed = out.filter((item) => item.json.accepted !== true);
	expect(failed.length).toBeGreaterThan(ITEMS / 2);
	expect(failed.every((item) => item.json.errorCode === 'REDIS_UNAVAILABLE')).toBe(true);

	// Redis is back; the Retry runs on a worker that never saw the first run.
	bed.proxy.setMode('open');
	clearLocalLedger();
	const [retried] = await executeNode({ ...setup, executionId: 'other-2', mode: 'retry' }, items);
	const refused = retried.filter((item) => item.json.accepted !== true);
	for (const item of refused) expect(item.json.errorCode).toBe('UNKNOWN_OUTCOME');
	// At most the requests waiting in the limiter when Redis went; the old ledger refused every failed item.
	expect(refused.length).toBeLessThanOrEqual(sendWindow(PLANS.free));
	expect(refused.length).toBeLessThan(failed.length);
	const counts = smsPerNumber(bed.emu);
	const twice = [...counts.values()].filter((n) => n > 1).length;
	const unsent = items.filter(({ phone }) => !counts.has(phone)).length;
	console.log(`Redis lost, Retry on another worker: ${failed.length} failed unsent, ${refused.length} refused as unknown on Retry, ${unsent} without an SMS, ${twice} twice`);
	expect(twice).toBe(0);
	expect(unsent).toBe(refused.length);
	// Every input item ended as an output item of each run.
	const lost = 2 * ITEMS - out.length - retried.length;
	expect(lost).toBe(0);
	recordCase('Redis lost mid-run, then Retry on another worker: the items never started are sent', { sentTwice: twice, lost, forgedAccepted: 0 });
}, 90_000);
