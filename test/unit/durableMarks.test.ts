/**
 * The send ledger's marks in n8n's processed-data row (sending/ledger/durableMarks.ts, nodeRow.ts), against
 * the jest stand-in of n8n's store (test/helpers/processedData.ts: md5 hashes, whole-row reads and
 * writes): what a look-up leaves, how many marks stay, and what each message costs in calls.
 */
import { nodeRowHelpers, processedData } from '../helpers/processedData';
import { durableMarks } from '../../nodes/SvcMessaging/sending/ledger/durableMarks';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/sending/ledger/ledgerBounds';

let n = 0;
/** n8n's node-facing helpers of one workflow's node, over the stand-in store. */
function nodeHelpers() {
	return nodeRowHelpers(`wf-marks-${++n}`, 'node-marks');
}

/** Messages named by themselves (the node names them by a digest: ledgerDurable.ts messageDigestOf). */
const same = (message: string) => message;

const rowMarks = (workflowId: string) => {
	const text = processedData.rows.get(`${workflowId}\u0000n:node-marks`);
	return text === undefined ? 0 : (JSON.parse(text) as { data: string[] }).data.length;
};

describe("the send ledger's marks in n8n's database", () => {
	it('a look-up leaves the row as it was: messages never posted stay unmarked, so a later Retry sends them', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers, same);
		await run.begin(['sent-1', 'sent-2']);
		run.accepted(['sent-1']);
		await run.written();
		expect(rowMarks(workflowId)).toBe(3);

		const retry = durableMarks(scopeKey, helpers, same);
		expect(await retry.lookup(['sent-1', 'sent-2', 'never-1', 'never-2'])).toEqual(['accepted', 'unknown', undefined, undefined]);
		expect(rowMarks(workflowId)).toBe(3);
		// Asked again (a second Retry refused before posting, then a third): still never posted.
		expect(await durableMarks(scopeKey, helpers, same).lookup(['never-1', 'never-2'])).toEqual([undefined, undefined]);
	});

	it('one message after another: the row keeps only the last finished runs, and each message costs the same number of calls', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const { keepFinishedMarks } = SEND_LEDGER.durable;
		const callsFor = async (messages: number) => {
			processedData.takeStats();
			for (let m = 0; m < messages; m++) {
				const run = durableMarks(scopeKey, helpers, same);
				await run.begin([`otp-${n}-${m}`]);
				run.accepted([`otp-${n}-${m}`]);
				await run.written();
				run.finished(`run-${m}`);
				await run.written();
			}
			return processedData.takeStats().calls;
		};
		const first = await callsFor(100);
		const later = await callsFor(2_000);
		expect(rowMarks(workflowId)).toBeLessThanOrEqual(2 * keepFinishedMarks + 2);
		// Two writes a message (each a read and a write of the row), and one removal for many messages.
		expect(later / 2_000).toBeLessThan(2 * 2.1);
		expect(later / 2_000).toBeLessThanOrEqual((first / 100) * 1.05);
	});

	it("a run that did not finish keeps its marks: an execution Retry finds them after the other runs' marks left", async () => {
		const { helpers, scopeKey } = nodeHelpers();
		const failed = durableMarks(scopeKey, helpers, same);
		await failed.begin(['failed-1', 'failed-2']);
		failed.accepted(['failed-1']);
		await failed.written();
		for (let m = 0; m < 3 * SEND_LEDGER.durable.keepFinishedMarks; m++) {
			const run = durableMarks(scopeKey, helpers, same);
			await run.begin([`later-${m}`]);
			run.finished(`later-${m}`);
		}
		await failed.written();
		expect(await durableMarks(scopeKey, helpers, same).lookup(['failed-1', 'failed-2'])).toEqual(['accepted', 'unknown']);
	});

	it('a message refused unsent loses its mark', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers, same);
		await run.begin(['refused']);
		run.notSent(['refused']);
		await run.written();
		expect(rowMarks(workflowId)).toBe(0);
		expect(await durableMarks(scopeKey, helpers, same).lookup(['refused'])).toEqual([undefined]);
	});

	it("a long run's marks leave in the order written, in calls of at most SEND_LEDGER.durable.removeAtMost, once it finished (not one search of the row per mark)", async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers, same);
		const messages = Array.from({ length: 30_000 }, (_, m) => `bulk-${m}`);
		// Two calls under way at a time, as Send Bulk posts them: the accepted marks of one come between the next ones' under-way marks.
		for (let c = 0; c < 30; c += 2) {
			const first = messages.slice(c * 1_000, (c + 1) * 1_000);
			const second = messages.slice((c + 1) * 1_000, (c + 2) * 1_000);
			await Promise.all([run.begin(first), run.begin(second)]);
			run.accepted(first);
			run.notSent(second.slice(0, 10));
			run.accepted(second.slice(10));
		}
		await run.written();
		expect(rowMarks(workflowId)).toBe(60_000 - 15 * 20);
		processedData.takeStats();
		run.finished('long-run');
		await run.written();
		expect(rowMarks(workflowId)).toBe(0);
		expect(processedData.takeStats().calls).toBeLessThanOrEqual(Math.ceil(60_000 / SEND_LEDGER.durable.removeAtMost) + 1);
	}, 60_000);
});
