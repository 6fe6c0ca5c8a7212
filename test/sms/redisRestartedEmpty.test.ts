/**
 * The shared ledger when its Redis restarts empty (no persistence, the default of many set-ups):
 * Redis's data is dated (its epoch), and n8n's database keeps each message's marks, so a Retry on
 * another worker refuses what it cannot prove unsent, naming the cause, instead of sending it
 * again; a message never begun is still sent without any option. A real redis-server is restarted;
 * "another worker" is this process with its ledger and Redis connections forgotten (a new worker has
 * none: this one's would still be reconnecting). Counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { sendParameters } from './fixtures';

const emu = useEmulator({ per: 'test' });
const redis = useRedis();
let run = 0;
beforeEach(() => {
	run++;
});

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + run * 1000 + i).padStart(8, '0')}` }));
const smsNumbers = () => emu.control.messages().map((m) => m.phoneNumber);
const twice = () => [...smsNumbers().reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>()).values()].filter((n) => n > 1).length;
const shared = () => apiKeyCredentials(emu.url, { redis: { port: redis.port } });
const settings = { onError: 'continueRegularOutput' as const };

/** A new worker has none of this one's state: its ledger, plain clients and shared limiters are let go. */
async function forgetThisWorker() {
	clearLocalLedger();
	await closeSharedLimiters();
	await closeRedisClients();
}

async function attempt(setup: NodeSetup, items: object[]) {
	try {
		return { output: (await executeNode(setup, items as never))[0] };
	} catch (error) {
		return { error: error as Error & { description?: string } };
	}
}

it('Redis restarted empty after a failed send: the Retry on another worker sends none again and says why', async () => {
	const items = phones(71_000_000, 30);
	emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api', count: 20 });
	emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api', count: 10 });
	const first = await attempt({ parameters: sendParameters(), credentials: shared(), executionId: `x-${run}-a`, settings }, items);
	expect(first.output!.filter((i) => i.json.accepted === true)).toHaveLength(20);
	expect(smsNumbers()).toHaveLength(30);

	await redis.restart();
	await forgetThisWorker();
	const retry = await attempt({ parameters: sendParameters(), credentials: shared(), executionId: `x-${run}-b`, mode: 'retry', settings }, items);
	const out = retry.output!;
	expect(out).toHaveLength(30);
	// n8n's database knew which were accepted; the rest are refused with the cause and the fix.
	expect(out.filter((i) => i.json.alreadySent === true)).toHaveLength(20);
	const refused = out.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME');
	expect(refused).toHaveLength(10);
	for (const item of refused) {
		expect(String(item.json.errorMessage)).toMatch(/Redis at 127\.0\.0\.1:\d+ \(database 0\) lost the send ledger's entry of this message/);
		expect(String(item.json.errorDescription)).toMatch(/Redis persistence \(appendonly yes\)/);
	}
	expect(smsNumbers()).toHaveLength(30);
	expect(twice()).toBe(0);
});

it('Redis restarted empty: a Retry of an execution that never began sending sends every message, with no option', async () => {
	const items = phones(72_000_000, 5);
	// The first execution failed before this node posted anything (here: nothing ran at all).
	await redis.restart();
	await forgetThisWorker();
	const [out] = await executeNode({ parameters: sendParameters(), credentials: shared(), executionId: `y-${run}-b`, mode: 'retry' }, items);
	expect(out.map((i) => i.json.accepted)).toEqual([true, true, true, true, true]);
	expect(smsNumbers()).toHaveLength(5);
});
