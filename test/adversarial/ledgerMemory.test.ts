/**
 * Issue 22, item 9: the in-process send ledger is bounded by bytes (SEND_LEDGER.maxMemoryBytes) and
 * keeps nothing of a run that finished. Filled past its bound by real Send Bulk runs against the
 * emulator (execution retries, whose runs never count as finished), the heap it holds is measured
 * with --expose-gc: the heap with the ledger minus the heap after clearing it.
 */
import { startEmulator, SEED_KEYS, type RunningEmulator } from '../emulator';
import { executeNode, shutdownN8nCore, type NodeSetup } from '../helpers/n8n';
import { noSender } from '../sms/fixtures';
import { recordCase } from './tally';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger';
import { heldSize } from '../../nodes/SvcMessaging/sending/ledgerMemory';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/transport/service';

const RUNS = 6;
const RECIPIENTS_PER_RUN = 10_000;
let emu: RunningEmulator;

beforeAll(async () => {
	emu = await startEmulator({ port: 0, timeScale: 1000 });
	for (const account of emu.control.accounts()) emu.control.updateAccount(account.id, { credits: 10_000_000 });
}, 60_000);

afterAll(async () => {
	clearLocalLedger();
	await emu.close();
	await shutdownN8nCore();
});

const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
	gc!();
	gc!();
	return process.memoryUsage().heapUsed;
}

function bulk(executionId: string, mode?: NodeSetup['mode']): NodeSetup {
	return {
		parameters: {
			resource: 'sms',
			operation: 'sendBulk',
			recipientsSource: 'items',
			phoneNumber: '={{ $json.phone }}',
			variablesSource: 'none',
			message: 'Your order has shipped and will arrive tomorrow between 9:00 and 12:00.',
			senderId: noSender,
			options: {},
		},
		credentials: { svcMessagingApi: { baseUrl: emu.url, apiKey: SEED_KEYS.business, plan: 'business' } },
		executionId,
		mode,
	};
}

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + i).padStart(8, '0')}` }));

it('filled past its bound, the in-process ledger holds at most SEND_LEDGER.maxMemoryBytes; a finished run\'s entries go first', async () => {
	expect(gc).toBeDefined();
	clearLocalLedger();
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
	expect(held.finishedRuns).toBe(0);
	const withLedger = heapUsed();
	clearLocalLedger();
	const measured = withLedger - heapUsed();

	// More was sent than the bound can hold: the oldest entries went.
	expect(held.entries).toBeLessThan(RUNS * RECIPIENTS_PER_RUN);
	expect(held.entries).toBeGreaterThan(0);
	expect(peakLedgerBytes).toBeLessThanOrEqual(SEND_LEDGER.maxMemoryBytes);
	// The estimate the bound counts is close to what the heap really holds (within 25 % over it).
	expect(measured).toBeLessThanOrEqual(SEND_LEDGER.maxMemoryBytes * 1.25);

	const counts = new Map<string, number>();
	for (const m of emu.control.messages()) counts.set(m.phoneNumber, (counts.get(m.phoneNumber) ?? 0) + 1);
	const sentTwice = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
	expect(counts.size).toBe(inputs);
	expect(sentTwice).toBe(0);
	const lost = inputs - outputs;
	expect(lost).toBe(0);
	const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
	recordCase(
		`send ledger in memory: ${RUNS * RECIPIENTS_PER_RUN} entries offered, ${held.entries} kept, ${mb(held.bytes)} MB counted, ${mb(measured)} MB measured (bound ${mb(SEND_LEDGER.maxMemoryBytes)} MB)`,
		{ sentTwice, lost, forgedAccepted: 0 },
	);
}, 300_000);
