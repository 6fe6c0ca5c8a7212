/**
 * Never twice after n8n restarts, without the shared Redis: the send ledger's record in n8n's own
 * database (n8n's processed-data helpers; test/helpers/processedData.ts plays n8n's store here,
 * e2e runs the real one) outlives the process. A restart is `clearLocalLedger()`: this process
 * forgets every entry; the database keeps its marks. Every claim is counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { processedData } from '../helpers/processedData';
import { waitFor } from '../helpers/waitFor';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { sendBulkParameters, sendParameters } from './fixtures';

const emu = useEmulator({ per: 'test' });
let run = 0;
beforeEach(() => {
	run++;
	processedData.failWith = undefined;
});

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + run * 1000 + i).padStart(8, '0')}` }));
const smsNumbers = () => emu.control.messages().map((m) => m.phoneNumber);
const countOf = (list: string[]) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
const twice = () => [...countOf(smsNumbers()).values()].filter((n) => n > 1).length;
const business = () => apiKeyCredentials(emu.url);

async function attempt(setup: NodeSetup, items: object[]) {
	try {
		return { output: (await executeNode(setup, items as never))[0] };
	} catch (error) {
		return { error: error as Error & { description?: string } };
	}
}

describe('SMS → Send, n8n restarted (no Redis), then the execution retried', () => {
	it('20 accepted, 10 whose answers were lost: the retry sends none again, reports 20 accepted and 10 of unknown outcome', async () => {
		const items = phones(61_000_000, 30);
		// The first 20 pass; the next 10 are processed and their connections dropped (as a kill mid-request leaves them).
		emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api', count: 20 });
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api', count: 10 });
		const settings = { onError: 'continueRegularOutput' as const };
		const first = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `r-${run}-a`, settings }, items);
		expect(first.output).toHaveLength(30);
		expect(smsNumbers()).toHaveLength(30);

		clearLocalLedger();
		const retry = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `r-${run}-b`, mode: 'retry', settings }, items);
		const out = retry.output!;
		expect(out).toHaveLength(30);
		const before = out.filter((i) => i.json.alreadySent === true);
		expect(before).toHaveLength(20);
		for (const item of before) expect(item.json).toMatchObject({ status: 'ACCEPTED', sentIn: { executionId: expect.stringMatching(/n8n’s database/) } });
		const unknown = out.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME');
		expect(unknown).toHaveLength(10);
		for (const item of unknown) expect(String(item.json.errorMessage)).toMatch(/being sent when n8n stopped/);
		out.forEach((item, i) => expect(item.pairedItem).toEqual({ item: i }));
		expect(smsNumbers()).toHaveLength(30);
		expect(twice()).toBe(0);
	});

	it("450 messages, 10 answers lost: n8n's database keeps the accepted ones in blocks (a fraction of two marks a message), and the retry after a restart sends none again", async () => {
		const items = phones(60_000_000, 450);
		// An empty row: earlier tests' marks (and their pending writes) out of the count.
		await new Promise((r) => setTimeout(r, 200));
		processedData.rows.clear();
		emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api', count: 300 });
		emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api', count: 10 });
		// Stop on error (the default): the run fails, and stays open for the Retry.
		// A workflow of its own: its node's row (and its size, known to this process) is not the next tests'.
		const workflowId = `long-${run}`;
		const first = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `l-${run}-a`, workflowId }, items);
		expect(first.error).toBeDefined();
		expect(smsNumbers()).toHaveLength(450);
		// Fewer than one mark a message, where it was two: a block accepted whole is one mark and its neighbours'.
		await new Promise((r) => setTimeout(r, 200));
		expect(processedData.marks()).toBeLessThan(450);

		clearLocalLedger();
		const settings = { onError: 'continueRegularOutput' as const };
		const retry = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `l-${run}-b`, workflowId, mode: 'retry', settings }, items);
		const out = retry.output!;
		expect(out.filter((i) => i.json.alreadySent === true)).toHaveLength(440);
		expect(out.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME')).toHaveLength(10);
		expect(smsNumbers()).toHaveLength(450);
		expect(twice()).toBe(0);
	}, 60_000);

	it('n8n killed mid-send at Free (5/s): the retry refuses only what had left n8n, and sends what was still waiting for its turn', async () => {
		const items = phones(69_000_000, 20);
		const free = apiKeyCredentials(emu.url, { plan: 'free' });
		// The first second's five requests are held at the service (answered after the "kill"); what
		// leaves later never reaches it (n8n is gone).
		emu.control.addFault({ kind: 'slow', delayMs: 1_500, pathPrefix: '/api/sms/send-api', count: 5 });
		emu.control.addFault({ kind: 'drop-before-processing', pathPrefix: '/api/sms/send-api', count: 1_000 });
		const settings = { onError: 'continueRegularOutput' as const };
		const first = attempt({ parameters: sendParameters(), credentials: free, executionId: `m-${run}-a`, settings }, items);
		// The kill: n8n's database as it is once five requests reached the service (a Free second holds
		// no sixth), while the other messages of the send window wait for their turn.
		await waitFor('five requests at the service', () => !emu.control.faults().some((f) => f.kind === 'slow'), 10_000, 2);
		const atKill = new Map(processedData.rows);
		await first;
		const reached = new Set(smsNumbers());
		expect(reached.size).toBe(5);
		emu.control.clearFaults();
		processedData.rows.clear();
		for (const [row, text] of atKill) processedData.rows.set(row, text);
		clearLocalLedger();

		const retry = await attempt({ parameters: sendParameters(), credentials: free, executionId: `m-${run}-b`, mode: 'retry', settings }, items);
		const out = retry.output!;
		const unknown = out.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME').map((i) => items[(i.pairedItem as { item: number }).item].phone);
		// Only messages that had reached the service are of unknown outcome; every other number gets its SMS now.
		expect(unknown.length).toBeGreaterThan(0);
		for (const number of unknown) expect(reached.has(number)).toBe(true);
		const sentNow = out.filter((i) => i.json.accepted === true && !i.json.alreadySent).length;
		expect(sentNow + unknown.length).toBe(20);
		expect(new Set(smsNumbers()).size).toBe(20);
		expect(twice()).toBe(0);
	}, 60_000);

	it('n8n killed right after the node returned: its accepted marks are already in the database, so the retry reports all as sent before', async () => {
		const items = phones(63_000_000, 3);
		const first = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `k-${run}-a` }, items);
		expect(first.output).toHaveLength(3);
		// What the database holds when the node returns; a later group write would die with the process.
		const atReturn = new Map(processedData.rows);
		await new Promise((resolve) => setTimeout(resolve, 200));
		processedData.rows.clear();
		for (const [row, text] of atReturn) processedData.rows.set(row, text);
		clearLocalLedger();
		const retry = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `k-${run}-b`, mode: 'retry' }, items);
		expect(retry.output?.map((i) => i.json.alreadySent)).toEqual([true, true, true]);
		expect(smsNumbers()).toHaveLength(3);
	});

	it('a retry of an execution that sent nothing sends everything, with no option; a message the service refused is posted again', async () => {
		const items = phones(62_000_000, 3);
		// The service refuses the first message (not processed): surely not sent.
		emu.control.addFault({ kind: 'server-error', status: 503, pathPrefix: '/api/nothing' });
		const refused = { ...sendParameters(), senderId: { __rl: true, mode: 'id', value: 'ACMEKE' } };
		const ghana = [{ phone: '+233241000777' }];
		const first = await attempt({ parameters: refused, credentials: business(), executionId: `n-${run}-a` }, ghana);
		expect(first.error?.message).toMatch(/INVALID_SENDER_ID|not approved/i);
		clearLocalLedger();
		const again = await attempt({ parameters: refused, credentials: business(), executionId: `n-${run}-b`, mode: 'retry' }, ghana);
		expect(again.error?.message).toMatch(/INVALID_SENDER_ID|not approved/i);
		expect(emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api')).toHaveLength(2);

		const [out] = await executeNode({ parameters: sendParameters(), credentials: business(), executionId: `n-${run}-c`, mode: 'retry' }, items);
		expect(out.map((i) => i.json.accepted)).toEqual([true, true, true]);
		expect(out.some((i) => i.json.alreadySent)).toBe(false);
		expect(smsNumbers().filter((n) => n.startsWith('+2547'))).toHaveLength(3);
	});

	it("yesterday's identical messages do not hold a retry back (marks count for 12 to 24 hours)", async () => {
		const items = phones(63_000_000, 2);
		await executeNode({ parameters: sendParameters(), credentials: business(), executionId: `y-${run}-a` }, items);
		clearLocalLedger();
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 25 * 3600 * 1000);
		try {
			const [out] = await executeNode({ parameters: sendParameters(), credentials: business(), executionId: `y-${run}-b`, mode: 'retry' }, items);
			expect(out.every((i) => i.json.accepted === true && i.json.alreadySent === undefined)).toBe(true);
		} finally {
			later.mockRestore();
		}
		expect(smsNumbers()).toHaveLength(4);
	});

	it("a finished run's marks leave n8n's database after its retry hour, at the node's next write: the row stays small", async () => {
		// An empty row: earlier tests' marks (and their pending writes) out of the count.
		await new Promise((r) => setTimeout(r, 200));
		processedData.rows.clear();
		const marksNow = () => processedData.marks();
		const before = 0;
		await executeNode({ parameters: sendParameters(), credentials: business(), executionId: `g-${run}-a` }, phones(67_000_000, 3));
		// (the accepted marks are written by the node's next write, not awaited by the send)
		await waitFor('six marks', () => marksNow() - before === 6, 5_000, 10);
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 61 * 60 * 1000);
		try {
			await executeNode({ parameters: sendParameters(), credentials: business(), executionId: `g-${run}-b` }, phones(67_000_500, 1));
		} finally {
			later.mockRestore();
		}
		// The first run's six marks are gone; the second run's two stay for its own hour.
		await waitFor('two marks', () => marksNow() - before === 2, 5_000, 10);
		expect(marksNow() - before).toBe(2);
	});

	it("another worker inserting the node's row at the same moment (PostgreSQL's duplicate key): the write is made again, each message sent once, a retry after a restart sends none again", async () => {
		const workflowId = `race-${run}`;
		processedData.otherProcessInsertsFirst = ['their-mark'];
		const items = phones(68_000_000, 3);
		const first = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `i-${run}-a`, workflowId }, items);
		expect(first.error).toBeUndefined();
		expect(first.output!.map((i) => [i.json.errorCode, typeof i.json.messageId])).toEqual(Array(3).fill([undefined, 'string']));
		expect(processedData.otherProcessInsertsFirst).toBeUndefined();
		// The other worker's mark stays: the second try rewrote the row it found.
		expect(processedData.holds(workflowId, 'node-under-test', 'their-mark')).toBe(true);

		clearLocalLedger();
		const retry = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `i-${run}-b`, workflowId, mode: 'retry' }, items);
		expect(retry.output!.map((i) => i.json.alreadySent)).toEqual([true, true, true]);
		expect(smsNumbers()).toHaveLength(3);
		expect(twice()).toBe(0);
	});

	it("n8n's database failing before a post: the message fails unsent, nothing is posted", async () => {
		processedData.failWith = new Error('SQLITE_BUSY: database is locked');
		const result = await attempt({ parameters: sendParameters(), credentials: business(), executionId: `f-${run}-a` }, phones(64_000_000, 2));
		expect(result.error).toBeDefined();
		expect(smsNumbers()).toHaveLength(0);
	});
});

describe('Send and Wait for Delivery, n8n restarted (no Redis), then the execution retried', () => {
	it('a message n8n’s database knows only as accepted (no message ID) is not sent again, and not reported delivered or not', async () => {
		const items = phones(66_000_000, 2);
		const waitParameters = { ...sendParameters(), operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 5, options: { pollInterval: 1 } };
		// The first execution posted both and was waiting when n8n was killed: its outcomes are in n8n's database only.
		const first = executeNode({ parameters: waitParameters, credentials: business(), executionId: `w-${run}-a` }, items);
		for (let i = 0; i < 400 && emu.control.messages().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
		await new Promise((r) => setTimeout(r, 100));
		clearLocalLedger();
		const [delivered, notDelivered] = await executeNode(
			{ parameters: waitParameters, credentials: business(), executionId: `w-${run}-b`, mode: 'retry', settings: { onError: 'continueRegularOutput' } },
			items,
		);
		await first;
		expect(delivered).toHaveLength(0);
		expect(notDelivered.map((i) => i.json.errorCode)).toEqual(['UNKNOWN_OUTCOME', 'UNKNOWN_OUTCOME']);
		for (const item of notDelivered) expect(String(item.json.errorMessage)).toMatch(/keeps no message ID, so its delivery cannot be followed/);
		expect(smsNumbers()).toHaveLength(2);
	}, 30_000);
});

describe('Send Bulk, n8n restarted (no Redis), then the execution retried', () => {
	it('250 recipients, the 2nd of 3 calls answers 500: after the restart the retry sends nobody twice', async () => {
		const items = phones(65_000_000, 250);
		const free = apiKeyCredentials(emu.url, { plan: 'free' });
		const parameters = sendBulkParameters({ variablesSource: 'none', message: 'Flash sale today', options: {} });
		emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api' });
		emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api' });
		const first = await attempt({ parameters, credentials: free, executionId: `b-${run}-a` }, items);
		expect(first.error?.message).toMatch(/100 recipient\(s\) were not accepted .*150 were accepted/);

		clearLocalLedger();
		const retry = await attempt({ parameters, credentials: free, executionId: `b-${run}-b`, mode: 'retry', settings: { onError: 'continueRegularOutput' } }, items);
		const out = retry.output!;
		expect(out.filter((i) => i.json.alreadySent === true)).toHaveLength(150);
		expect(out.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME')).toHaveLength(100);
		expect(smsNumbers()).toHaveLength(150);
		expect(twice()).toBe(0);
	}, 60_000);
});
