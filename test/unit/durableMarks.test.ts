/**
 * The send ledger's marks in n8n's processed-data row (sending/durableMarks.ts, nodeRow.ts), against
 * the jest stand-in of n8n's store (test/helpers/processedData.ts: md5 hashes, whole-row reads and
 * writes): what a look-up leaves, how many marks stay, and what each message costs in calls.
 */
import type { ICheckProcessedContextData, DeduplicationScope, ICheckProcessedOptions } from 'n8n-workflow';

import { processedData } from '../helpers/processedData';
import { durableMarks, type ProcessedData } from '../../nodes/SvcMessaging/sending/durableMarks';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/sending/ledgerBounds';

let n = 0;
/** n8n's node-facing helpers of one workflow's node, over the stand-in store. */
function nodeHelpers(): { helpers: ProcessedData; scopeKey: string; workflowId: string } {
	const workflowId = `wf-marks-${++n}`;
	const context = { workflow: { id: workflowId }, node: { id: 'node-marks' } } as unknown as ICheckProcessedContextData;
	const helpers: ProcessedData = {
		checkProcessedAndRecord: async (items, scope: DeduplicationScope, options: ICheckProcessedOptions) => await processedData.checkProcessedAndRecord(items, scope, context, options),
		removeProcessed: async (items, scope: DeduplicationScope) => await processedData.removeProcessed(items, scope, context),
		getProcessedDataCount: async (scope: DeduplicationScope) => await processedData.getProcessedDataCount(scope, context),
	};
	return { helpers, scopeKey: `${workflowId}\u0000node-marks`, workflowId };
}

const rowMarks = (workflowId: string) => {
	const text = processedData.rows.get(`${workflowId}\u0000n:node-marks`);
	return text === undefined ? 0 : (JSON.parse(text) as { data: string[] }).data.length;
};

describe("the send ledger's marks in n8n's database", () => {
	it('a look-up leaves the row as it was: messages never posted stay unmarked, so a later Retry sends them', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers);
		await run.begin(['sent-1', 'sent-2']);
		run.accepted(['sent-1']);
		await run.written();
		expect(rowMarks(workflowId)).toBe(3);

		const retry = durableMarks(scopeKey, helpers);
		expect(await retry.lookup(['sent-1', 'sent-2', 'never-1', 'never-2'])).toEqual(['accepted', 'unknown', undefined, undefined]);
		expect(rowMarks(workflowId)).toBe(3);
		// Asked again (a second Retry refused before posting, then a third): still never posted.
		expect(await durableMarks(scopeKey, helpers).lookup(['never-1', 'never-2'])).toEqual([undefined, undefined]);
	});

	it('one message after another: the row keeps only the last finished runs, and each message costs the same number of calls', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const { keepFinishedMarks } = SEND_LEDGER.durable;
		const callsFor = async (messages: number) => {
			processedData.takeStats();
			for (let m = 0; m < messages; m++) {
				const run = durableMarks(scopeKey, helpers);
				await run.begin([`otp-${n}-${m}`]);
				run.accepted([`otp-${n}-${m}`]);
				await run.written();
				run.finished(`run-${m}`, 1, (visit) => visit(`otp-${n}-${m}`, true));
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
		const failed = durableMarks(scopeKey, helpers);
		await failed.begin(['failed-1', 'failed-2']);
		failed.accepted(['failed-1']);
		await failed.written();
		for (let m = 0; m < 3 * SEND_LEDGER.durable.keepFinishedMarks; m++) {
			const run = durableMarks(scopeKey, helpers);
			await run.begin([`later-${m}`]);
			run.finished(`later-${m}`, 1, (visit) => visit(`later-${m}`, false));
		}
		await failed.written();
		expect(await durableMarks(scopeKey, helpers).lookup(['failed-1', 'failed-2'])).toEqual(['accepted', 'unknown']);
	});

	it('a message refused unsent loses its mark', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers);
		await run.begin(['refused']);
		run.notSent(['refused']);
		await run.written();
		expect(rowMarks(workflowId)).toBe(0);
		expect(await durableMarks(scopeKey, helpers).lookup(['refused'])).toEqual([undefined]);
	});
});
