/**
 * Send Bulk to 20,000 recipients, {{placeholders}} filled from each item's fields,
 * at Business (two calls of 10,000). The chunks are streamed: every recipient is checked first,
 * each call's body is built when its turn comes, and what stays per recipient is its number, its
 * ledger identity and its output. The V8 heap is sampled while the node runs (a lower bound of
 * its peak) and its growth per 1,000 recipients must stay under a generous bound: measured
 * 1,200–1,600 KB (output items and the send ledger's entries are most of it; before the streaming
 * 1,700–1,800 KB), so the bound catches a return to holding far more per recipient, not noise.
 *
 * The emulator runs as a child process (bench/lib.ts), so the messages it stores are not in this
 * heap; it is still what counts them.
 */
import { getHeapStatistics } from 'v8';

import { call, inputItems, seedAccount, startEmulatorProcess, TEMPLATE, type Emulator } from '../../bench/lib';
import { apiKeyCredentials } from '../helpers/credentials';
import { executeNode } from '../helpers/n8n';
import { sendBulkParameters } from '../sms/fixtures';
import { recordCase } from './tally';

const RECIPIENTS = 20_000;
/** KB of peak heap growth per 1,000 recipients, output items included (see above for the measured figures). */
const BOUND_KB_PER_1000 = 2_500;

let emulator: Emulator;

beforeAll(async () => {
	emulator = await startEmulatorProcess();
}, 120_000);

afterAll(async () => {
	await emulator.stop();
});

function sampleHeapPeak(): () => number {
	let peak = getHeapStatistics().used_heap_size;
	const sample = () => (peak = Math.max(peak, getHeapStatistics().used_heap_size));
	const timer = setInterval(sample, 2);
	return () => {
		clearInterval(timer);
		sample();
		return peak;
	};
}

it('Send Bulk to 20,000 recipients: peak heap per 1,000 recipients under the bound, each sent once, none lost', async () => {
	const gc = (global as { gc?: () => void }).gc;
	expect(gc).toBeDefined(); // jest.adversarial.config.js runs under node --expose-gc
	const key = `svc_test_bulk_memory_${Date.now()}`;
	const accountId = await seedAccount(emulator.url, [{ key, plan: 'business' }]);
	const parameters = sendBulkParameters({ message: TEMPLATE, options: { reference: 'bulk-memory' } });
	const credentials = apiKeyCredentials(emulator.url, { apiKey: key });
	// Warm: code compiled, n8n-core's helpers loaded (not part of what 20,000 recipients cost).
	await executeNode({ parameters, credentials }, inputItems(200, 9_000_000));

	const items = inputItems(RECIPIENTS);
	gc!();
	const before = getHeapStatistics().used_heap_size;
	const stop = sampleHeapPeak();
	const [output] = await executeNode({ parameters, credentials }, items);
	const peakGrowthKB = (stop() - before) / 1024;
	const perThousandKB = Math.round(peakGrowthKB / (RECIPIENTS / 1000));

	// Every input item is one output item, paired to it, accepted.
	const paired = new Set(output.map((o) => (o.pairedItem as { item: number }).item));
	const lost = items.filter((_, i) => !paired.has(i)).length;
	expect(output).toHaveLength(RECIPIENTS);
	expect(lost).toBe(0);
	expect(output.every((o) => o.json.accepted === true)).toBe(true);
	expect(output[7].json).toMatchObject({ accepted: true, phoneNumber: items[7].json.phone, status: 'PENDING' });

	// At the emulator: one message per recipient of this run (the warm-up's numbers are elsewhere).
	const { body } = await call(emulator.url, 'GET', `/__emulator/messages?accountId=${encodeURIComponent(accountId)}&batchId=${encodeURIComponent(String(output[0].json.batchId))}`);
	const firstBatch = body!.data as Array<{ phoneNumber: string }>;
	const all = (await call(emulator.url, 'GET', `/__emulator/messages?accountId=${encodeURIComponent(accountId)}`)).body!.data as Array<{ phoneNumber: string }>;
	const wanted = new Set(items.map((item) => item.json.phone));
	const sent = all.filter((m) => wanted.has(m.phoneNumber));
	const sentTwice = sent.length - new Set(sent.map((m) => m.phoneNumber)).size;
	expect(firstBatch).toHaveLength(10_000);
	expect(sent).toHaveLength(RECIPIENTS);
	expect(sentTwice).toBe(0);

	expect(perThousandKB).toBeLessThan(BOUND_KB_PER_1000);
	process.stdout.write(`bulk memory: ${RECIPIENTS} recipients, peak heap +${Math.round(peakGrowthKB / 1024)} MB, ${perThousandKB} KB per 1,000 recipients\n`);
	recordCase('Send Bulk to 20,000 recipients: heap per 1,000 recipients bounded', { sentTwice, lost, forgedAccepted: 0, peakHeapPer1000RecipientsKB: perThousandKB });
}, 120_000);
