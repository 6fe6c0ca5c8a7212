/**
 * A long run's per-message tables for the durable marks (markBlocks.ts), in typed arrays outside the
 * V8 heap: a Send Bulk of 100,000 recipients kept them as 100,000 digest strings and a Map entry each
 * (~9 MB of heap), here 1.6 MB and 1 MB of buffers.
 */

/** 32-bit FNV-1a of a string's char codes (`seed` in place of FNV's offset basis to hash within a group). */
export function hashOf(text: string, seed = 0x811c9dc5): number {
	let hash = seed;
	for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
	return hash >>> 0;
}

/**
 * Each unit's place in the run, found by its identity (a Map's get and set, last set winning):
 * open addressing over a table twice the units' count; a slot holds the place + 1, and the identity
 * is read back from the units to tell collisions apart.
 */
export class PositionIndex {
	private readonly slots: Int32Array;
	private readonly mask: number;

	constructor(private readonly units: ReadonlyArray<{ identity: string }>) {
		let size = 8;
		while (size < units.length * 2) size *= 2;
		this.slots = new Int32Array(size);
		this.mask = size - 1;
		units.forEach((unit, position) => (this.slots[this.slotOf(unit.identity)] = position + 1));
	}

	get(identity: string): number | undefined {
		const held = this.slots[this.slotOf(identity)];
		return held === 0 ? undefined : held - 1;
	}

	/** The identity's slot, or the empty slot where it would go. */
	private slotOf(identity: string): number {
		let slot = hashOf(identity) & this.mask;
		for (let held = this.slots[slot]; held !== 0 && this.units[held - 1].identity !== identity; held = this.slots[slot]) slot = (slot + 1) & this.mask;
		return slot;
	}
}

/**
 * Each unit's digest (32 hex characters, as `digestOf` answers) kept as its 16 bytes outside the
 * heap: as 100,000 strings it took ~5 MB of heap for a whole Send Bulk. A name is made again when asked.
 */
export class PackedDigests {
	private static readonly HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
	private readonly bytes: Uint8Array;

	constructor(readonly count: number) {
		this.bytes = new Uint8Array(count * 16);
	}

	set(n: number, hex: string): void {
		for (let i = 0; i < 16; i++) this.bytes[n * 16 + i] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1));
	}

	/** The digest as one flat string. */
	nameAt(n: number): string {
		return this.markAt(n, [], []);
	}

	/**
	 * `prefix`, the digest and `suffix` (char codes) as one flat string: a mark built with a template is
	 * a tree of its parts (three nodes and a number's text each, ~150 bytes; a finished Send Bulk of
	 * 100,000 made 100,000 at once), this one its ~40 bytes.
	 */
	markAt(n: number, prefix: readonly number[], suffix: readonly number[]): string {
		const codes = [...prefix];
		for (let i = 0; i < 16; i++) {
			const byte = this.bytes[n * 16 + i];
			codes.push(PackedDigests.HEX[byte >> 4], PackedDigests.HEX[byte & 15]);
		}
		codes.push(...suffix);
		return String.fromCharCode(...codes);
	}

	/** The first 32 bits, as parseInt(name.slice(0, 8), 16) reads them. */
	headAt(n: number): number {
		const b = this.bytes;
		return ((b[n * 16] << 24) | (b[n * 16 + 1] << 16) | (b[n * 16 + 2] << 8) | b[n * 16 + 3]) >>> 0;
	}
}

/** A lowercase hex digit's value. */
const nibble = (code: number) => (code <= 57 ? code - 48 : code - 87);
