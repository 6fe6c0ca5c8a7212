/**
 * The in-process send ledger is bounded by bytes (SEND_LEDGER.maxMemoryBytes);
 * past the bound whole runs go, finished ones first, then open ones not written to for
 * SEND_LEDGER.openRunProtectionMs. Filled past its bound by real Send Bulk runs against the
 * emulator (execution retries, whose runs never count as finished; the protection set to 0 here so
 * that they age at once), the heap it holds is measured with --expose-gc: the heap with the ledger
 * minus the heap after clearing it. And an open run bigger than the bound keeps every entry while
 * protected: its Retry On Fail sends nothing twice.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, type NodeSetup } from '../helpers/n8n';
import { sendBulkParameters } from '../sms/fixtures';
import { recordCase } from './tally';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { heldSize } from '../../nodes/SvcMessaging/sending/ledger/ledgerMemory';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/sending/ledger/ledgerBounds';

const RUNS = 6;
const RECIPIENTS_PER_RUN = 10_000;
// The second case counts from where the first left the emulator (its credits, its messages).
const emu = useEmulator({ timeScale: 1000, resetEachTest: false });

beforeAll(() => {
	for (const account of emu.control.accounts()) emu.control.updateAccount(account.id, { credits: 10_000_000 });
});
afterAll(clearLocalLedger);

const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
	gc!();
	gc!();
	return process.memoryUsage().heapUsed;
}

function bulk(executionId: string, mode?: NodeSetup['mode']): NodeSetup {
	return {
		parameters: sendBulkParameters({ variablesSource: 'none', message: 'Your order has shipped and will arrive tomorrow between 9:00 and 12:00.' }),
		credentials: apiKeyCredentials(emu.url),
		executionId,
		mode,
	};
}

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + i).padStart(8, '0')}` }));

it('filled past its bound, the in-process ledger holds at most SEND_LEDGER.maxMemoryBytes; a finished run\'s entries go first', async () => {
	expect(gc).toBeDefined();
	clearLocalLedger();
	const protection = SEND_LEDGER.openRunProtectionMs;
	const bound = SEND_LEDGER.maxMemoryBytes;
	(SEND_LEDGER as { openRunProtectionMs: number }).openRunProtectionMs = 0;
	// A bound the runs below overfill (the real one holds ~100,000 such entries).
	(SEND_LEDGER as { maxMemoryBytes: number }).maxMemoryBytes = 8 * 1024 * 1024;
	let inputs = 0;
	let outputs = 0;

	// A run that finished: no execution Retry can need its entries, so they are the first to go (they
	// stay until then: the node may still fail after its round, and Retry On Fail re-runs that run).
	const finished = phones(80_000_000, 2_000);
	const [done] = await executeNode(bulk('memory-finished'), finished);
	inputs += finished.length;
	outputs += done.length;
	expect(done.every((item) => item.json.accepted === true)).toBe(true);
	expect(heldSize()).toMatchObject({ entries: finished.length, finishedRuns: 1 });

	// Execution retries (never finished: a second Retry must find them), each with new recipients.
	let peakLedgerBytes = 0;
	for (let run = 0; run < RUNS; run++) {
		const items = phones(81_000_000 + run * RECIPIENTS_PER_RUN, RECIPIENTS_PER_RUN);
		const [out] = await executeNode(bulk(`memory-retry-${run}`, 'retry'), items);
		inputs += items.length;
		outputs += out.length;
		expect(out.every((item) => item.json.accepted === true && item.json.alreadySent === undefined)).toBe(true);
		peakLedgerBytes = Math.max(peakLedgerBytes, heldSize().bytes);
	}
	const held = heldSize();
	(SEND_LEDGER as { openRunProtectionMs: number }).openRunProtectionMs = protection;
	const testBound = SEND_LEDGER.maxMemoryBytes;
	(SEND_LEDGER as { maxMemoryBytes: number }).maxMemoryBytes = bound;
	expect(held.finishedRuns).toBe(0);
	const withLedger = heapUsed();
	clearLocalLedger();
	const measured = withLedger - heapUsed();

	// More was sent than the bound can hold: the oldest entries went.
	expect(held.entries).toBeLessThan(RUNS * RECIPIENTS_PER_RUN);
	expect(held.entries).toBeGreaterThan(0);
	expect(peakLedgerBytes).toBeLessThanOrEqual(testBound);
	// The estimate the bound counts is close to what the heap really holds (within 25 % over it).
	expect(measured).toBeLessThanOrEqual(testBound * 1.25);

	const counts = new Map<string, number>();
	for (const m of emu.control.messages()) counts.set(m.phoneNumber, (counts.get(m.phoneNumber) ?? 0) + 1);
	const sentTwice = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
	expect(counts.size).toBe(inputs);
	expect(sentTwice).toBe(0);
	const lost = inputs - outputs;
	expect(lost).toBe(0);
	const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
	recordCase(
		`send ledger in memory: ${RUNS * RECIPIENTS_PER_RUN} entries offered, ${held.entries} kept, ${mb(held.bytes)} MB counted, ${mb(measured)} MB measured (bound ${mb(testBound)} MB)`,
		{ sentTwice, lost, forgedAccepted: 0 },
	);
}, 300_000);

it('an open run bigger than the bound keeps all its entries while protected: its retry sends nothing twice', async () => {
	clearLocalLedger();
	const bound = SEND_LEDGER.maxMemoryBytes;
	(SEND_LEDGER as { maxMemoryBytes: number }).maxMemoryBytes = 512 * 1024;
	try {
		const items = phones(90_000_000, 3_000);
		const before = emu.control.messages().length;
		const [first] = await executeNode(bulk('memory-open-big', 'retry'), items);
		expect(first.every((item) => item.json.accepted === true)).toBe(true);
		const held = heldSize();
		expect(held.bytes).toBeGreaterThan(SEND_LEDGER.maxMemoryBytes);
		expect(held.entries).toBe(items.length);
		// The same run again (a retry that finds the run open): everything is reported, nothing sent.
		const [again] = await executeNode(bulk('memory-open-big', 'retry'), items);
		expect(again.every((item) => item.json.alreadySent === true)).toBe(true);
		const sent = emu.control.messages().length - before;
		const sentTwice = sent - items.length;
		expect(sentTwice).toBe(0);
		const lost = 2 * items.length - first.length - again.length;
		expect(lost).toBe(0);
		recordCase(`send ledger: an open run of ${items.length} entries over a ${SEND_LEDGER.maxMemoryBytes / 1024} KB bound keeps them all; its retry sends nothing`, {
			sentTwice,
			lost,
			forgedAccepted: 0,
		});
	} finally {
		(SEND_LEDGER as { maxMemoryBytes: number }).maxMemoryBytes = bound;
	}
}, 120_000);
