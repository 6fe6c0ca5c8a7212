/**
 * The send ledger's block marks (sending/ledger/markBlocks.ts, durableMarks.ts) against the jest
 * stand-in of n8n's store (test/helpers/processedData.ts: md5 hashes, whole-row reads and writes):
 * a block the service accepted whole is one mark, so a long run's row stays small and each message
 * costs the same bytes at any length; a Retry after a crash still tells accepted, under way and
 * never posted apart, and refuses rather than resends what a changed block hides.
 */
import { createHash } from 'crypto';

import { nodeRowHelpers, processedData } from '../helpers/processedData';
import { durableMarks, type DurableMarks } from '../../nodes/SvcMessaging/sending/ledger/durableMarks';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/sending/ledger/ledgerBounds';
import { MarkBlocks } from '../../nodes/SvcMessaging/sending/ledger/markBlocks';

const BLOCK = SEND_LEDGER.durable.blockMessages;
let n = 0;

function nodeHelpers() {
	return nodeRowHelpers(`wf-blocks-${++n}`, 'node-blocks');
}

/** Messages named by a hex digest, as the node names them (ledgerDurable.ts messageDigestOf): blocks end where a digest says. */
const same = (message: string) => createHash('sha256').update(message).digest('hex').slice(0, 32);
const unitsOf = (messages: string[]) => messages.map((identity) => ({ identity }));
const rowMarks = (workflowId: string) => {
	const text = processedData.rows.get(`${workflowId}\u0000n:node-blocks`);
	return text === undefined ? 0 : (JSON.parse(text) as { data: string[] }).data.length;
};

/**
 * Posts `messages` as a send does: `perPost` at a time, a window of 40 posts under way, each marked
 * before it leaves and accepted after (past a long run's first messages the row gathers its writes:
 * a window keeps them together).
 */
async function send(run: DurableMarks, messages: string[], perPost = 10, rowSize?: () => number) {
	const posts = Array.from({ length: Math.ceil(messages.length / perPost) }, (_, p) => messages.slice(p * perPost, (p + 1) * perPost));
	let largest = 0;
	for (let at = 0; at < posts.length; at += 40) {
		await Promise.all(
			posts.slice(at, at + 40).map(async (post) => {
				await run.begin(post);
				run.accepted(post);
			}),
		);
		largest = Math.max(largest, rowSize?.() ?? 0);
	}
	await run.written();
	return largest;
}

describe("the send ledger's block marks in n8n's database", () => {
	it("a long run keeps three marks a block (its own, its neighbours'), not two a message: its row is as large at 30,000 messages as at 3,000", async () => {
		const largestRow = async (count: number) => {
			const { helpers, scopeKey, workflowId } = nodeHelpers();
			const messages = Array.from({ length: count }, (_, m) => `long-${count}-${m}`);
			const run = durableMarks(scopeKey, helpers, same);
			run.plan(unitsOf(messages));
			const largest = await send(run, messages, 50, () => rowMarks(workflowId));
			// A block's own mark and its neighbours' (ledger/markBlocks.ts), far fewer than two a message.
			expect(rowMarks(workflowId)).toBeLessThan(count / 10);
			return largest;
		};
		const short = await largestRow(3_000);
		const long = await largestRow(30_000);
		// n8n rewrites the row whole on every call: what a message costs follows the row's size (the real bytes: npm run bench).
		expect(long / short).toBeLessThan(1.25);
	}, 60_000);

	it('n8n stopped mid-run: a Retry finds the whole blocks and the last messages accepted, refuses those under way (and the few the lead covers past them), sends the rest', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const messages = Array.from({ length: 1_000 }, (_, m) => `crash-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(messages));
		await send(run, messages.slice(0, 650));
		await run.begin(messages.slice(650, 660));
		await run.written();
		const marks = rowMarks(workflowId);
		expect(marks).toBeLessThan(650);

		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(messages));
		const found = await retry.lookup(messages);
		expect(found.slice(0, 650).every((f) => f === 'accepted')).toBe(true);
		expect(found.slice(650, 660).every((f) => f === 'unknown')).toBe(true);
		// Past its first messages a run is under way up to its lead, written a few posts ahead (ledger/runLead.ts).
		const { leadStep, leadAhead } = SEND_LEDGER.durable;
		const ahead = found.slice(660).filter((f) => f === 'unknown').length;
		expect(ahead).toBeLessThanOrEqual(leadStep + leadAhead - 1);
		expect(found.slice(660, 660 + ahead).every((f) => f === 'unknown')).toBe(true);
		expect(found.slice(660 + ahead).every((f) => f === undefined)).toBe(true);
		// The look-up leaves the row as it was.
		expect(rowMarks(workflowId)).toBe(marks);
	});

	it('a block whose content changed before the Retry: its messages are refused as of unknown outcome, not sent again', async () => {
		const { helpers, scopeKey } = nodeHelpers();
		const messages = Array.from({ length: 500 }, (_, m) => `changed-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(messages));
		await send(run, messages);
		// One text in the first block and one in the third come out differently on the Retry (an
		// expression reading the clock); the blocks between keep theirs (a block whose neighbours
		// all changed too cannot be told from a new one: ledger/markBlocks.ts).
		const original = new MarkBlocks(unitsOf(messages), same);
		expect(original.levels).toHaveLength(1);
		const changed = [7, original.levels[0].starts[2] + 3];
		const again = messages.map((m, i) => (changed.includes(i) ? `${m} at 10:01` : m));
		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(again));
		const found = await retry.lookup(again);
		const blockOf = (i: number) => original.blocksOf(messages[i])[0];
		const changedBlocks = new Set(changed.map(blockOf));
		expect(changedBlocks.size).toBe(2);
		found.forEach((f, i) => expect([i, f]).toEqual([i, changedBlocks.has(blockOf(i)) ? 'changed' : 'accepted']));
	});

	it('names each message and block as the digests of their contents (what earlier versions wrote: a Retry after an upgrade finds its marks)', () => {
		const messages = Array.from({ length: 1_000 }, (_, m) => `named-${m}`);
		const blocks = new MarkBlocks(unitsOf(messages), same);
		const { starts, names } = blocks.levels[0];
		expect(names.length).toBeGreaterThan(1);
		messages.forEach((m, i) => expect([blocks.digestOf(m), blocks.positionOf(m)]).toEqual([same(m), i]));
		expect(blocks.messageMarks(messages, 'u:', ':40123')).toEqual(messages.map((m) => `u:${same(m)}:40123`));
		// A block ends after a message whose digest's first 32 bits are a multiple of the block size (or, past twice it, of a tenth).
		const ends = starts.slice(1, -1).map((start) => parseInt(same(messages[start - 1]).slice(0, 8), 16));
		ends.forEach((head) => expect(head % BLOCK === 0 || head % (BLOCK / 10) === 0).toBe(true));
		names.forEach((name, block) => expect(name).toBe(same(`0\u0000${messages.slice(starts[block], starts[block + 1]).map(same).join('\u0000')}`)));
		expect([blocks.digestOf('not in the run'), blocks.positionOf('not in the run')]).toEqual([undefined, undefined]);
	});

	it('a Retry whose list gained a unit finds every other block as it was (blocks end where a digest says, not at a position)', async () => {
		const { helpers, scopeKey } = nodeHelpers();
		const messages = Array.from({ length: 1_000 }, (_, m) => `shifted-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(messages));
		await send(run, messages);
		const again = [...messages.slice(0, 120), 'a new line', ...messages.slice(120)];
		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(again));
		const found = await retry.lookup(again);
		expect(found.filter((f) => f === undefined)).toHaveLength(0);
		expect(found.filter((f) => f === 'accepted').length).toBeGreaterThan(600);
	});

	it('a message reported accepted twice is counted once: its block is not recorded whole while another is under way', async () => {
		const { helpers, scopeKey } = nodeHelpers();
		const messages = Array.from({ length: 3 * BLOCK }, (_, m) => `twice-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(messages));
		await run.begin(messages);
		run.accepted(messages.slice(0, -1));
		run.accepted(messages.slice(0, 1));
		await run.written();
		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(messages));
		const found = await retry.lookup(messages);
		expect(found.at(-1)).toBe('unknown');
		expect(new Set(found.slice(0, -1))).toEqual(new Set(['accepted']));
	});

	it("a finished run of 5,000 stays whole in the row's finished tail (a Retry right after n8n stopped finds it), and leaves once newer runs follow", async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const messages = Array.from({ length: 5_000 }, (_, m) => `finished-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(messages));
		await send(run, messages, 100);
		run.finished('finished-run');
		await run.written();
		expect(rowMarks(workflowId)).toBeLessThanOrEqual(2 * SEND_LEDGER.durable.keepFinishedMarks);
		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(messages));
		expect(new Set(await retry.lookup(messages))).toEqual(new Set(['accepted']));
		for (let m = 0; m < 3 * SEND_LEDGER.durable.keepFinishedMarks; m++) {
			const later = durableMarks(scopeKey, helpers, same);
			await send(later, [`later-${m}`]);
			later.finished(`later-${m}`);
		}
		await run.written();
		expect((await durableMarks(scopeKey, helpers, same).lookup(messages.slice(0, 10))).every((f) => f === undefined)).toBe(true);
	});

	it("Send Bulk's calls of 1,000: whole blocks keep their recipients' marks until the run finishes (no mass removal mid-run), a Retry finds them accepted, and they leave with the run", async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const recipients = Array.from({ length: 3_000 }, (_, m) => `bulk-${m}`);
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(recipients));
		for (let call = 0; call < 3; call++) {
			const members = recipients.slice(call * 1_000, (call + 1) * 1_000);
			await run.begin(members);
			run.accepted(members);
		}
		await run.written();
		// The first call's 1,000 `u` marks stay (the later calls are under the run's lead: ledger/runLead.ts).
		expect(rowMarks(workflowId)).toBeGreaterThanOrEqual(1_000);
		const retry = durableMarks(scopeKey, helpers, same);
		retry.plan(unitsOf(recipients));
		expect(new Set(await retry.lookup(recipients))).toEqual(new Set(['accepted']));
		run.finished('bulk-run');
		for (let m = 0; m < 3 * SEND_LEDGER.durable.keepFinishedMarks; m++) {
			const later = durableMarks(scopeKey, helpers, same);
			await send(later, [`after-bulk-${m}`]);
			later.finished(`after-bulk-${m}`);
		}
		await run.written();
		expect(rowMarks(workflowId)).toBeLessThanOrEqual(2 * SEND_LEDGER.durable.keepFinishedMarks);
		expect((await durableMarks(scopeKey, helpers, same).lookup(recipients.slice(0, 10))).every((f) => f === undefined)).toBe(true);
	});

	it('a run shorter than a block keeps a mark a message (a one-SMS execution writes no block)', async () => {
		const { helpers, scopeKey, workflowId } = nodeHelpers();
		const run = durableMarks(scopeKey, helpers, same);
		run.plan(unitsOf(['otp-1']));
		await send(run, ['otp-1']);
		expect(rowMarks(workflowId)).toBe(2);
	});
});
