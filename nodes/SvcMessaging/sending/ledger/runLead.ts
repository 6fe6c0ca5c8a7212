import { NODE_ROW } from '../../stores/rowBounds';
import type { NodeRow } from '../../stores/nodeRow';
import type { MarkBlocks } from './markBlocks';

/**
 * A long run's "under way" record past its first messages (durableMarks.ts `long`): one lead mark,
 * "every message of this run before this place may have left", in place of a mark a message. It is
 * written in the key limiter's slot, right before the request leaves, like a short run's marks: a
 * post below the written lead leaves at once; one at or past it waits for the one write that moves
 * the lead a few posts on (NODE_ROW.leadStep, started NODE_ROW.leadAhead posts early so that the
 * write is under way while those posts leave). So after a kill a Retry withholds, of what never
 * left, at most those few posts; and the row holds one mark where it held one a message a send
 * window ahead (a row n8n rewrites whole on every call, a few times a second).
 *
 * The lead at place P is named by the message at P − 1 (its digest and the half-day bucket): a
 * Retry asks each possible lead of its own plan, so a lead holds only where the Retry's list has
 * that same message in that same place. Posts enter their slots a little out of order (a send
 * window of posts): the lead only rises and covers a prefix, so a late lower post is covered too.
 * A message below the lead refused unsent gets an `x` mark (surely not sent: a Retry sends it).
 */
export class RunLead {
	/** every place below it is covered by a lead in the row (the first places have their own marks) */
	private written: number;
	private requested: number;
	private readonly writes: Array<{ to: number; done: Promise<void> }> = [];
	/** the leads in the row, lowest first: taken out once the blocks below them are whole */
	private readonly held: Array<{ to: number; mark: string }> = [];

	constructor(
		private readonly row: NodeRow,
		private readonly blocks: MarkBlocks,
		private readonly bucket: number,
		from: number,
	) {
		this.written = this.requested = from;
	}

	/** Resolves once the row holds a lead past `last` (a place); rejects with the row's error. */
	async cover(last: number): Promise<void> {
		const need = last + 1;
		while (need > this.written) {
			if (need + NODE_ROW.leadAhead > this.requested) this.raise(need);
			const write = this.writes.find((w) => w.to >= need);
			if (write) await write.done;
			// (none: a write failed meanwhile; the next one is asked for)
			else this.requested = this.written;
		}
		if (need + NODE_ROW.leadAhead > this.requested) this.raise(need);
	}

	/** Leads the blocks below `whole` (a place) made needless: taken out with the blocks' parts. */
	below(whole: number): string[] {
		let n = 0;
		while (n < this.held.length - 1 && this.held[n].to <= whole) n++;
		return this.held.splice(0, n).map((h) => h.mark);
	}

	/** The leads still in the row (a finished run's marks, taken out later). */
	marks(): string[] {
		return this.held.map((h) => h.mark);
	}

	private raise(need: number) {
		const { leadStep, leadAhead } = NODE_ROW;
		const to = Math.min(this.blocks.size, Math.ceil((need + leadAhead) / leadStep) * leadStep);
		if (to <= this.requested) return;
		this.requested = to;
		const mark = leadMark(this.blocks, to, this.bucket);
		const write = {
			to,
			done: this.row.add([mark], true).then(
				() => {
					this.written = Math.max(this.written, to);
					this.requested = Math.max(this.requested, to);
					this.held.push({ to, mark });
				},
				(error: unknown) => {
					// The next post asks again; those waiting for this write fail unsent.
					this.requested = this.written;
					throw error;
				},
			),
		};
		this.writes.push(write);
		void write.done.catch(() => undefined).then(() => this.writes.splice(this.writes.indexOf(write), 1));
	}
}

/** The lead at place `to` (every message of the run before it may have left). */
export function leadMark(blocks: MarkBlocks, to: number, bucket: number): string {
	return `w:${blocks.digestAt(to - 1)}:${bucket}`;
}

/** The places a lead may have been written at: each step past `from`, and the plan's end. */
export function leadPlaces(blocks: MarkBlocks, from: number): number[] {
	const places: number[] = [];
	for (let to = Math.ceil((from + 1) / NODE_ROW.leadStep) * NODE_ROW.leadStep; to < blocks.size; to += NODE_ROW.leadStep) places.push(to);
	if (blocks.size > from) places.push(blocks.size);
	return places;
}

/**
 * A Retry's look-up of the leads of its plan (in the half-days `buckets`): the marks to ask, then,
 * from what was found, the messages a found lead covers, with the `x` marks to ask of those (a
 * second, small call: only when a lead was found).
 */
export function leadLookup(blocks: MarkBlocks | undefined, from: number, buckets: number[], messages: readonly string[]) {
	const leads = blocks && blocks.size > from ? leadPlaces(blocks, from).flatMap((to) => buckets.map((b) => ({ to, mark: leadMark(blocks, to, b) }))) : [];
	return {
		asked: leads.map((l) => l.mark),
		/** The messages at or past `from` below the highest lead found, each with its `x` marks. */
		covered(found: ReadonlySet<string>): Array<string[] | undefined> {
			const lead = leads.reduce((top, l) => (l.to > top && found.has(l.mark) ? l.to : top), from);
			return messages.map((m) => {
				const position = blocks?.positionOf(m);
				if (position === undefined || position < from || position >= lead) return undefined;
				return buckets.map((b) => `x:${blocks!.digestAt(position)}:${b}`);
			});
		},
	};
}
