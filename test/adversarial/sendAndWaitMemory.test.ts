/**
 * A waiting execution of "Send and Wait for Delivery" must not keep its node context (input items,
 * run data) in memory until its wake time (up to 24 h). 40 executions wait, each with 10 items
 * carrying 100 KB of extra JSON; the heap is measured after a full GC (node --expose-gc) while all
 * of them wait. A wake-up call whose closure held the node's context cost about 1.2 MB each.
 */
import { randomBytes } from 'crypto';

import { startEmulatorWithClient, type EmulatorProcess } from '../e2e/harness';
import { apiKeyCredentials } from '../helpers/credentials';
import { recordCase } from './tally';
import { sendAndWaitParameters, useWaitingN8n } from './waitingN8n';

const EXECUTIONS = 40;
const ITEMS = 10;
const TIMEOUT_S = 20;
/** the warm-up executions are numbered from here */
const WARM_UP = 100;
let emu: EmulatorProcess;

const gc = (global as unknown as { gc?: () => void }).gc;

beforeAll(async () => {
	// In its own process (its state is not this process's heap). Slow lifecycle: no message is final
	// while the executions wait, so only the node's wake-up calls resume them.
	emu = await startEmulatorWithClient({ timeScale: 1000 });
}, 60_000);
afterAll(async () => {
	await emu.stop();
});
const n8n = useWaitingN8n(() => ({ parameters: sendAndWaitParameters('webhook', TIMEOUT_S), credentials: apiKeyCredentials(emu.url) }));

/**
 * The heap in use once garbage stops falling: full GCs with a turn of the event loop between them
 * (weak callbacks run there and free more), until two figures agree within 16 KB. This file runs
 * without V8's compilation cache and memory reducer (scripts/adversarial.sh): the cache's 5-6 MB
 * of compiled code aged out at a GC no test controls, between the before and peak figures or
 * between peak and after (115-200 KB per execution of noise against a 64 KB bound).
 */
async function settledHeap(): Promise<number> {
	let last = Infinity;
	for (let round = 0; round < 20; round++) {
		gc!();
		gc!();
		const used = process.memoryUsage().heapUsed;
		if (Math.abs(last - used) < 16 * 1024) return Math.min(last, used);
		last = used;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return last;
}

async function startWaiting(execution: number): Promise<void> {
	const items = Array.from({ length: ITEMS }, (_, i) => ({
		phone: `+25471${String(execution).padStart(3, '0')}${String(i).padStart(4, '0')}`,
		// A flat, unique string (a repeated or padded one is a tree of shared pieces, far smaller in memory).
		extra: { notes: randomBytes(50 * 1024).toString('hex') },
	}));
	const run = await n8n.start(`mem-${execution}`, items);
	expect(run.state).toBe('waiting');
}

it(`${EXECUTIONS} waiting executions × ${ITEMS} items × 100 KB: a few KB of heap each, and every one is resumed at its timeout`, async () => {
	expect(gc).toBeDefined();
	// Warm up with as many waits, run to their end (V8 compiles and optimises the code of the first
	// runs; n8n-core, the limiter and the HTTP agents set up), so that the measurement sees only what the waits hold.
	for (let w = 0; w < EXECUTIONS; w++) await startWaiting(WARM_UP + w);
	for (let w = 0; w < EXECUTIONS; w++) expect((await n8n.finished(`mem-${WARM_UP + w}`, (TIMEOUT_S + 30) * 1000)).state).toBe('finished');
	const before = await settledHeap();
	for (let e = 0; e < EXECUTIONS; e++) await startWaiting(e);
	const peak = await settledHeap();

	// The wake-up calls still come: every execution finishes with its 10 items on "Not Delivered".
	for (let e = 0; e < EXECUTIONS; e++) {
		const done = await n8n.finished(`mem-${e}`, (TIMEOUT_S + 30) * 1000);
		expect(done.state).toBe('finished');
	}
	// Two views of the same figure, the larger one counts: the growth from before the waits (which
	// a jest worker's earlier test files can blur), and what the waits gave back when they ended.
	const after = await settledHeap();
	const perWaitKB = (bytes: number) => Math.round(bytes / EXECUTIONS / 1024);
	process.stderr.write(`heap: before ${before}, peak ${peak}, after ${after}: per waiting execution up ${perWaitKB(peak - before)} KB, down ${perWaitKB(peak - after)} KB\n`);
	const peakHeapPerWaitKB = perWaitKB(Math.max(peak - before, peak - after));
	expect(peakHeapPerWaitKB).toBeLessThan(64);
	const outputs = [...n8n.runs.values()].filter((r) => Number(r.executionId.slice(4)) < EXECUTIONS).flatMap((r) => r.outputs!.flat());
	const lost = EXECUTIONS * ITEMS - outputs.length;
	const messages = await emu.client.messages();
	const sentTwice = messages.length - new Set(messages.map((m: { phoneNumber: string }) => m.phoneNumber)).size;
	expect(lost).toBe(0);
	expect(sentTwice).toBe(0);
	recordCase(`Send and Wait: ${EXECUTIONS} waiting executions × ${ITEMS} items × 100 KB held ${peakHeapPerWaitKB} KB each`, {
		sentTwice,
		lost,
		forgedAccepted: 0,
		peakHeapPerWaitKB,
	});
}, 240_000);
