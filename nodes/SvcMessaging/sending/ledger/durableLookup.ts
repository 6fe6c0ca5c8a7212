import type { BlockMarks, MarkBlocks } from './markBlocks';
import { olderRunMarks } from './olderRun';
import { leadLookup } from './runLead';

type State = 'accepted' | 'unknown' | 'changed' | undefined;
const mark = (kind: 'u' | 'a', digest: string, bucket: number) => `${kind}:${digest}:${bucket}`;

/** The run's plan as durableMarks.ts holds it: its blocks (a long run), how it names a message, its first message, where its lead begins. */
interface Plan {
	blocks: MarkBlocks | undefined;
	nameOf: (message: string) => string;
	first: string | undefined;
	from: number;
}

/**
 * A Retry's look-up of the durable marks (durableMarks.ts `lookup`) in the half-days `now` and the
 * one before: `ask` answers which of the marks the row holds, leaving it as it was. Each message's
 * own marks, its blocks' (markBlocks.ts), the run's leads (runLead.ts) and the plan's first
 * message in older half-days (olderRun.ts) are asked in one call; the `x` marks of the messages a
 * found lead covers with no mark of their own, in a second.
 */
export async function lookupMarks(ask: (marks: string[]) => Promise<Set<string>>, { blocks, nameOf, first, from }: Plan, messages: readonly string[], now: number) {
	const buckets = [now, now - 1];
	const digests = messages.map(nameOf);
	const asked = digests.flatMap((d) => buckets.flatMap((b) => [mark('u', d, b), mark('a', d, b)]));
	// The asked messages' blocks at each level: each one's mark and its neighbour's, in both buckets.
	const blocksOf = messages.map((m) => blocks?.blocksOf(m) ?? []);
	const blockMarks = new Map<string, BlockMarks[]>();
	for (const levels of blocksOf) {
		levels.forEach((block, level) => {
			const key = `${level}:${block}`;
			if (blockMarks.has(key)) return;
			const marks = buckets.map((b) => blocks!.marksOf(level, block, b));
			blockMarks.set(key, marks);
			for (const { whole, neighbours } of marks) asked.push(whole, ...neighbours);
		});
	}
	const older = olderRunMarks(first, nameOf, blocks, now);
	const leads = leadLookup(blocks, from, buckets, messages);
	for (const m of [...older.asked, ...leads.asked]) asked.push(m);
	const found = await ask(asked);
	const blockState = (levels: number[]) => {
		const marks = levels.map((block, level) => blockMarks.get(`${level}:${block}`)!);
		if (marks.some((m) => m.some(({ whole }) => found.has(whole)))) return 'whole';
		return marks.some((m) => m.some(({ neighbours }) => neighbours.some((n) => found.has(n)))) ? 'changed' : undefined;
	};
	const states = digests.map((d, i): State => {
		const state = blockState(blocksOf[i]);
		if (state === 'whole' || buckets.some((b) => found.has(mark('a', d, b)))) return 'accepted';
		if (buckets.some((b) => found.has(mark('u', d, b)))) return 'unknown';
		return state;
	});
	// Below a found lead a message with no mark of its own may have left, unless it was refused unsent (`x`).
	const covered = leads.covered(found).map((x, i) => (states[i] === undefined ? x : undefined));
	if (covered.some(Boolean)) {
		const notSent = await ask(covered.flatMap((x) => x ?? []));
		covered.forEach((x, i) => {
			if (x && !x.some((m) => notSent.has(m))) states[i] = 'unknown';
		});
	}
	return { states, olderRunAt: older.olderRunAt(found) };
}
