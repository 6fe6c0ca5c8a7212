/**
 * Never twice when a failed execution is retried. n8n's executions list "Retry" runs the
 * failed node again with its original input as a NEW execution in mode `retry`; here that is
 * executeNode with a new execution ID and `mode: 'retry'`, through n8n-core's real ExecuteContext.
 * Every claim is counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { OPTED_IN, OPTED_IN_2, OPTED_IN_NG } from '../chat/helpers';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendBulkParameters, sendParameters } from './fixtures';

// A new emulator per test: each test counts every message one service received across its tries.
const emu = useEmulator({ per: 'test' });
let run = 0;

beforeEach(() => {
	run++;
});

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + run * 1000 + i).padStart(8, '0')}` }));

const bulkParameters = (options: Record<string, unknown> = {}) => sendBulkParameters({ variablesSource: 'none', message: 'Flash sale today', options });

const free = () => apiKeyCredentials(emu.url, { plan: 'free' });
const smsNumbers = () => emu.control.messages().map((m) => m.phoneNumber);
const countOf = (list: string[]) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());

/** Runs the node; the error it fails with, or its output. */
async function attempt(setup: NodeSetup, items: object[]) {
	try {
		return { output: (await executeNode(setup, items as never))[0] };
	} catch (error) {
		return { error: error as Error & { description?: string } };
	}
}

describe('Send Bulk: a failed execution retried', () => {
	it('250 recipients, the 2nd of 3 calls answers 500: the retry sends nobody twice and reports the 100 of unknown fate', async () => {
		const items = phones(10_000_000, 250);
		// The first call passes (slow: 1 ms), the second gets a 500.
		emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
		emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
		const first = await attempt({ parameters: bulkParameters(), credentials: free(), executionId: `bulk-${run}-a` }, items);
		expect(first.error?.message).toMatch(/100 recipient\(s\) were not accepted .*150 were accepted/);
		expect(smsNumbers()).toHaveLength(150);

		// Retry (new execution, mode retry, same input): nothing new is sent.
		const retry = await attempt({ parameters: bulkParameters(), credentials: free(), executionId: `bulk-${run}-b`, mode: 'retry' }, items);
		expect(retry.error?.message).toMatch(/100 recipient\(s\) were not accepted .*150 were accepted/);
		expect(retry.error?.description).toMatch(/An earlier try may already have sent this message/);
		expect(smsNumbers()).toHaveLength(150);

		// With "Continue On Fail" the output says which recipients were sent earlier and which are unknown.
		const shown = await attempt(
			{ parameters: bulkParameters(), credentials: free(), executionId: `bulk-${run}-c`, mode: 'retry', settings: { onError: 'continueRegularOutput' } },
			items,
		);
		const out = shown.output!;
		expect(out).toHaveLength(250);
		expect(out.filter((i) => i.json.alreadySent === true && typeof i.json.messageId === 'string')).toHaveLength(150);
		// Each says which execution sent it, and when.
		for (const item of out.filter((i) => i.json.alreadySent === true)) {
			expect(item.json.sentIn).toEqual({ executionId: `bulk-${run}-a`, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) });
		}
		const unknown = out.filter((i) => i.json.accepted === false);
		expect(unknown).toHaveLength(100);
		for (const item of unknown) expect(String(item.json.errorMessage)).toMatch(/earlier try may already have sent/);
		// Labelled by what happened (the outcome is unknown), not VALIDATION_ERROR.
		for (const item of unknown) expect(item.json.errorCode).toBe('UNKNOWN_OUTCOME');
		out.forEach((item, i) => expect(item.pairedItem).toEqual({ item: i }));
		expect(smsNumbers()).toHaveLength(150);

		// Only when asked are the unknown ones sent again: every recipient then exactly once.
		const resend = await attempt(
			{ parameters: bulkParameters({ resendUnknownOutcome: true }), credentials: free(), executionId: `bulk-${run}-d`, mode: 'retry' },
			items,
		);
		expect(resend.error).toBeUndefined();
		expect(resend.output!.filter((i) => i.json.alreadySent === true)).toHaveLength(150);
		expect(resend.output!.filter((i) => i.json.accepted === true && i.json.alreadySent === undefined)).toHaveLength(100);
		const counts = countOf(smsNumbers());
		expect(counts.size).toBe(250);
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
	}, 60_000);

	it('a new (not retry) execution of the same input is never suppressed', async () => {
		const items = phones(20_000_000, 3);
		await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `new-${run}-a` }, items);
		await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `new-${run}-b` }, items);
		expect(smsNumbers()).toHaveLength(6);
	});

	it("a retry is not held back by an earlier execution that finished with the same messages (yesterday's reminder)", async () => {
		const items = phones(30_000_000, 2);
		await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `done-${run}-a` }, items);
		// The retry comes a day later (past SEND_LEDGER.finishedRunRetryWindowMs).
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 24 * 3600 * 1000);
		try {
			const [out] = await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `done-${run}-b`, mode: 'retry' }, items);
			expect(out.every((i) => i.json.accepted === true && i.json.alreadySent === undefined)).toBe(true);
		} finally {
			later.mockRestore();
		}
		expect(smsNumbers()).toHaveLength(4);
	});

	it('the node succeeded, then the execution crashed before n8n saved its progress: a Retry within the hour sends none again', async () => {
		const items = phones(35_000_000, 3);
		await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `crash-${run}-a` }, items);
		const [out] = await executeNode({ parameters: bulkParameters(), credentials: free(), executionId: `crash-${run}-b`, mode: 'retry' }, items);
		expect(out.map((i) => i.json.alreadySent)).toEqual([true, true, true]);
		expect(out.map((i) => (i.json.sentIn as { executionId: string }).executionId)).toEqual([`crash-${run}-a`, `crash-${run}-a`, `crash-${run}-a`]);
		expect(smsNumbers()).toHaveLength(3);
	});

	it('the same recipient twice in one run is two messages, and a second Retry of the same failed execution sends none again', async () => {
		const [one] = phones(40_000_000, 1);
		const items = [one, one, ...phones(40_000_100, 1)];
		emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api', count: 1 });
		// One call of 3 at Business: the 500 leaves all three unknown; nothing reached the service.
		const business = apiKeyCredentials(emu.url);
		const first = await attempt({ parameters: bulkParameters(), credentials: business, executionId: `dup-${run}-a` }, items);
		expect(first.error).toBeDefined();
		const retried = await attempt({ parameters: bulkParameters({ resendUnknownOutcome: true }), credentials: business, executionId: `dup-${run}-b`, mode: 'retry' }, items);
		expect(retried.error).toBeUndefined();
		expect(countOf(smsNumbers()).get(one.phone)).toBe(2);
		const again = await attempt({ parameters: bulkParameters(), credentials: business, executionId: `dup-${run}-c`, mode: 'retry' }, items);
		expect(again.error).toBeUndefined();
		expect(again.output!.map((i) => i.json.alreadySent)).toEqual([true, true, true]);
		expect(smsNumbers()).toHaveLength(3);
	});
});

describe('SMS → Send: a failed execution retried', () => {
	it('n8n does not tell a node which execution it retries: a match from another failed execution names that execution and its time', async () => {
		const [one, two] = phones(55_000_000, 2);
		// Executions X, then Y (a new run, never held back): the first message is accepted, the second answers 500.
		for (const execution of ['x', 'y']) {
			emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
			emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
			expect((await attempt({ parameters: sendParameters(), credentials: free(), executionId: `cross-${run}-${execution}` }, [one, two])).error).toBeDefined();
		}
		expect(countOf(smsNumbers()).get(one.phone)).toBe(2);

		// Retry of X: the match is Y's entry (the latest of the same message); the output says so.
		const started = Date.now();
		const retry = await attempt(
			{ parameters: sendParameters(), credentials: free(), executionId: `cross-${run}-r`, mode: 'retry', settings: { onError: 'continueRegularOutput' } },
			[one, two],
		);
		const [first, second] = retry.output!;
		expect(first.json).toMatchObject({ accepted: true, alreadySent: true, sentIn: { executionId: `cross-${run}-y` } });
		const at = Date.parse(String((first.json.sentIn as { at: string }).at));
		expect(at).toBeLessThanOrEqual(started);
		expect(started - at).toBeLessThan(30_000);
		expect(String(second.json.errorDescription)).toMatch(new RegExp(`The earlier try: execution cross-${run}-y at \\d{4}-`));
		expect(countOf(smsNumbers()).get(one.phone)).toBe(2);
		expect(countOf(smsNumbers()).get(two.phone)).toBeUndefined();
	});

	it('a dropped connection after the service accepted: reported on retry, resent only with the option', async () => {
		const items = phones(50_000_000, 6);
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api' });
		const first = await attempt({ parameters: sendParameters(), credentials: free(), executionId: `send-${run}-a` }, items);
		expect(first.error?.message).toMatch(/1 message\(s\) were not accepted .*5 were accepted/);
		// The dropped request was processed: six messages at the service.
		expect(smsNumbers()).toHaveLength(6);

		const retry = await attempt(
			{ parameters: sendParameters(), credentials: free(), executionId: `send-${run}-b`, mode: 'retry', settings: { onError: 'continueRegularOutput' } },
			items,
		);
		expect(retry.output!.filter((i) => i.json.alreadySent === true)).toHaveLength(5);
		const [unknown] = retry.output!.filter((i) => i.json.accepted === false);
		expect(String(unknown.json.errorMessage)).toMatch(/earlier try may already have sent this message/);
		expect(unknown.json.errorCode).toBe('UNKNOWN_OUTCOME');
		expect(smsNumbers()).toHaveLength(6);

		// The user asked for it: the one of unknown fate goes again (the service then has it twice).
		const resend = await attempt(
			{ parameters: sendParameters({ options: { resendUnknownOutcome: true } }), credentials: free(), executionId: `send-${run}-c`, mode: 'retry' },
			items,
		);
		expect(resend.error).toBeUndefined();
		expect(smsNumbers()).toHaveLength(7);
		expect(countOf(smsNumbers()).get(String(unknown.json.phoneNumber))).toBe(2);
	}, 30_000);
});

describe('Chat Message → Send: a failed execution retried', () => {
	it('one chat send answers 500: the retry sends none of the accepted again', async () => {
		for (const phoneNumber of [OPTED_IN, OPTED_IN_2, OPTED_IN_NG]) emu.control.addOptIn({ phoneNumber });
		const parameters = { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Your order shipped', options: {} };
		const credentials = apiKeyCredentials(emu.url);
		const items = [{ phone: OPTED_IN }, { phone: OPTED_IN_2 }, { phone: OPTED_IN_NG }];
		emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/chat/messages' });
		const first = await attempt({ parameters, credentials, executionId: `chat-${run}-a` }, items);
		expect(first.error?.message).toMatch(/1 chat message\(s\) were not accepted .*2 were accepted/);
		expect(emu.control.chatMessages()).toHaveLength(2);

		const retry = await attempt({ parameters, credentials, executionId: `chat-${run}-b`, mode: 'retry' }, items);
		expect(retry.error?.message).toMatch(/1 chat message\(s\) were not accepted/);
		expect(retry.error?.description).toMatch(/earlier try may already have sent this message/);
		expect(emu.control.chatMessages()).toHaveLength(2);

		const resend = await attempt({ parameters: { ...parameters, options: { resendUnknownOutcome: true } }, credentials, executionId: `chat-${run}-c`, mode: 'retry' }, items);
		expect(resend.error).toBeUndefined();
		expect(resend.output!.filter((i) => i.json.alreadySent === true)).toHaveLength(2);
		const numbers = emu.control.chatMessages().map((m) => m.phoneNumber);
		expect(numbers.sort()).toEqual([OPTED_IN, OPTED_IN_2, OPTED_IN_NG].sort());
	});
});

describe('with the shared Redis: a retry on another worker or after a restart', () => {
	const redis = useRedis();

	it('the ledger lives in Redis: after this process forgets, the retry still sends nobody twice', async () => {
		const shared = apiKeyCredentials(emu.url, { plan: 'free', redis: { port: redis.port } });
		const items = phones(60_000_000, 150);
		emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
		emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
		const first = await attempt({ parameters: bulkParameters(), credentials: shared, executionId: `redis-${run}-a` }, items);
		expect(first.error?.message).toMatch(/50 recipient\(s\) were not accepted .*100 were accepted/);

		clearLocalLedger(); // what a restart, or another worker, starts with
		const retry = await attempt(
			{ parameters: bulkParameters({ resendUnknownOutcome: true }), credentials: shared, executionId: `redis-${run}-b`, mode: 'retry' },
			items,
		);
		expect(retry.error).toBeUndefined();
		expect(retry.output!.filter((i) => i.json.alreadySent === true)).toHaveLength(100);
		const counts = countOf(smsNumbers());
		expect(counts.size).toBe(150);
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
	}, 60_000);
});
