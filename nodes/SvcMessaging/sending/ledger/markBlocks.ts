import { NODE_ROW } from '../../stores/rowBounds';
import { PackedDigests, PositionIndex } from './runIndex';

/**
 * A run's messages in blocks of about NODE_ROW.blockMessages consecutive units (the round's order,
 * before any stage decides one), and those blocks in blocks of about NODE_ROW.blocksPerBlock, and so
 * on: once the
 * service accepted a whole block, one mark in the node's row in n8n's database stands for it, in
 * place of two marks a message (or of its smaller blocks' marks). n8n reads and rewrites that row
 * whole on every call; so it stays small through a run of any length, and each message costs the
 * same to record.
 *
 * A block ends where a part's digest says so (one in its level's size; past twice the size, one in
 * ten), as content-defined chunking does, not at a fixed position: a retry whose list lost or
 * gained a unit (a workflow edited before "Retry with currently saved workflow") finds the other
 * blocks as they were. A block's mark names its content (a digest of its parts' names in order), so
 * only a retry whose block holds exactly those messages finds it. Each block's mark comes with its
 * neighbours' ("the block after the one named X was accepted whole", "… before the one named Y"):
 * a retry that finds one for a block it cannot match (a text an expression draws from the clock
 * changed) refuses the block's unmarked messages as of unknown outcome instead of sending them.
 * It cannot tell when a block and both its neighbours changed. So a level is used only when the
 * run has two blocks of it or more. A level's last block is never recorded whole (levelOver).
 */
export interface BlockMarks {
	/** the block's own mark */
	whole: string;
	/** its neighbours' marks: "the block after X" (not for the first) and "the block before Y" (not for the last) */
	neighbours: string[];
}

/** One level of blocks over the parts below it (units for the first). */
interface Level {
	/** the first part of each block, and one past the last part */
	starts: number[];
	/** the block of each part */
	blockOfPart: Uint32Array;
	/** parts of each block not accepted yet */
	left: Uint16Array;
	names: string[];
}

/** Where a block of `size` parts ends: its digest's first 32 bits say so one in `size`, or more often past twice that (a hard end at 10 × `size` is all but never reached). */
function endsBlock(head: number, length: number, size: number): boolean {
	return head % size === 0 || (length >= 2 * size && head % Math.max(1, size / 10) === 0) || length >= 10 * size;
}

/** A level's parts: how many, each one's name, and its name's first 32 bits. */
interface Parts {
	count: number;
	nameAt: (part: number) => string;
	headAt: (part: number) => number;
}

const partsNamed = (names: string[]): Parts => ({ count: names.length, nameAt: (part) => names[part], headAt: (part) => parseInt(names[part].slice(0, 8), 16) });

/** Cuts named parts into blocks; answers undefined when they make fewer than two. */
function levelOver(parts: Parts, level: number, digestOf: (text: string) => string): Level | undefined {
	const size = level === 0 ? NODE_ROW.blockMessages : NODE_ROW.blocksPerBlock;
	const starts = [0];
	for (let part = 0; part < parts.count - 1; part++) {
		if (endsBlock(parts.headAt(part), part + 1 - starts[starts.length - 1], size)) starts.push(part + 1);
	}
	if (starts.length < 2) return undefined;
	starts.push(parts.count);
	const count = starts.length - 1;
	const blockOfPart = new Uint32Array(parts.count);
	const left = new Uint16Array(count);
	const blockNames: string[] = [];
	for (let block = 0; block < count; block++) {
		blockOfPart.fill(block, starts[block], starts[block + 1]);
		// The last block is never recorded whole: it ends where the list does, not where a digest says,
		// so a later run whose list goes on (an earlier list and new numbers) has another block there,
		// and its marks would call that block changed and refuse its never-sent messages. It keeps a
		// mark a message instead.
		left[block] = starts[block + 1] - starts[block] + (block === count - 1 ? 1 : 0);
		const members: string[] = [];
		for (let part = starts[block]; part < starts[block + 1]; part++) members.push(parts.nameAt(part));
		blockNames.push(digestOf(`${level}\u0000${members.join('\u0000')}`));
	}
	return { starts, blockOfPart, left, names: blockNames };
}

export class MarkBlocks {
	private readonly positions: PositionIndex;
	/** a message counted once, however often it is reported (a block must never be called whole too soon) */
	private readonly counted: Uint8Array;
	/** each unit's digest, computed once: a digest makes a hash object, ~1 KB of heap for a moment */
	private readonly digests: PackedDigests;
	readonly levels: Level[] = [];
	/** first-level blocks, from the first, all accepted whole */
	private wholeBlocks = 0;

	constructor(
		private readonly units: ReadonlyArray<{ identity: string }>,
		digestOf: (message: string) => string,
	) {
		this.positions = new PositionIndex(units);
		this.counted = new Uint8Array(units.length);
		this.digests = new PackedDigests(units.length);
		units.forEach((unit, n) => this.digests.set(n, digestOf(unit.identity)));
		// The units' digests are the first level's parts.
		let parts: Parts = this.digests;
		for (let level = 0; ; level++) {
			const next = levelOver(parts, level, digestOf);
			if (!next) break;
			this.levels.push(next);
			parts = partsNamed(next.names);
		}
	}

	/** The message's place in the run's plan (undefined when it is not in it). */
	positionOf(message: string): number | undefined {
		return this.positions.get(message);
	}

	/** The plan's length. */
	get size(): number {
		return this.units.length;
	}

	/** The digest of the message at a place of the plan. */
	digestAt(position: number): string {
		return this.digests.nameAt(position);
	}

	/** The place below which every first-level block was accepted whole (they mostly complete in order). */
	wholeUpTo(): number {
		const { starts, left } = this.levels[0];
		while (this.wholeBlocks < left.length && left[this.wholeBlocks] === 0) this.wholeBlocks++;
		return starts[this.wholeBlocks];
	}

	/** The message's digest, when it is in the run's plan. */
	digestOf(message: string): string | undefined {
		const position = this.positions.get(message);
		return position === undefined ? undefined : this.digests.nameAt(position);
	}

	/** Each message's mark `prefix` + digest + `suffix`, each one flat string (undefined when a message is not in the run's plan). */
	messageMarks(messages: readonly string[], prefix: string, suffix: string): Array<string | undefined> {
		const codesOf = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
		const [before, after] = [codesOf(prefix), codesOf(suffix)];
		return messages.map((message) => {
			const position = this.positions.get(message);
			return position === undefined ? undefined : this.digests.markAt(position, before, after);
		});
	}

	/** The message's block at each level (none when it is not in the run's plan). */
	blocksOf(message: string): number[] {
		let part = this.positions.get(message);
		if (part === undefined) return [];
		return this.levels.map((level) => (part = level.blockOfPart[part!]));
	}

	/** The parts of a block (units' identities for the first level, block numbers for the others). */
	messagesOf(block: number): string[] {
		const { starts } = this.levels[0];
		return this.units.slice(starts[block], starts[block + 1]).map((unit) => unit.identity);
	}

	partsOf(level: number, block: number): number[] {
		const { starts } = this.levels[level];
		return Array.from({ length: starts[block + 1] - starts[block] }, (_, i) => starts[block] + i);
	}

	/** The marks of a block accepted whole, in the run's half-day bucket. */
	marksOf(level: number, block: number, bucket: number): BlockMarks {
		const { names } = this.levels[level];
		const neighbours = [];
		if (block > 0) neighbours.push(`n:${names[block - 1]}:${bucket}`);
		if (block < names.length - 1) neighbours.push(`p:${names[block + 1]}:${bucket}`);
		return { whole: `b:${names[block]}:${bucket}`, neighbours };
	}

	/** Counts accepted messages; answers the blocks they completed, smaller ones first ([level, block]). */
	accepted(messages: readonly string[]): Array<[level: number, block: number]> {
		const completed: Array<[number, number]> = [];
		for (const message of messages) {
			const position = this.positions.get(message);
			if (position === undefined || this.counted[position]) continue;
			this.counted[position] = 1;
			let part = position;
			for (let level = 0; level < this.levels.length; level++) {
				const block = this.levels[level].blockOfPart[part];
				if (--this.levels[level].left[block] > 0) break;
				completed.push([level, block]);
				part = block;
			}
		}
		return completed;
	}

	/** The highest level at which the message's block was accepted whole in this run (-1: none). */
	wholeLevel(message: string): number {
		let part = this.positions.get(message);
		if (part === undefined) return -1;
		let whole = -1;
		// (no array per message: this runs for every message of a long run)
		for (let level = 0; level < this.levels.length; level++) {
			part = this.levels[level].blockOfPart[part];
			if (this.levels[level].left[part] !== 0) break;
			whole = level;
		}
		return whole;
	}

	/** The larger block a block is part of (none at the top level). */
	parentOf(level: number, block: number): number | undefined {
		return this.levels[level + 1]?.blockOfPart[block];
	}
}
