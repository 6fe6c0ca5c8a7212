import { SEND_LEDGER } from '../transport/service';

/**
 * The in-process part of the send ledger, bounded by estimated bytes (SEND_LEDGER.maxMemoryBytes)
 * and evicted a whole run at a time, in this order:
 * 1. finished runs (an execution Retry never re-runs a finished run), oldest first;
 * 2. open runs (not finished: running, or failed) whose last write is older than
 *    SEND_LEDGER.openRunProtectionMs, oldest first.
 * An open run written to within that window is never evicted, whatever its size: its Retry On
 * Fail (n8n waits at most 5 s between at most 5 tries) must find every message it sent — a Send
 * Bulk of 100,000 recipients holds 100,000 entries, more than the bound, and a Retry On Fail that
 * found only the last 30,000 would send the rest again. Such a run costs memory in proportion to
 * its own input, which n8n holds too while it runs; once the window has passed, the bound applies.
 *
 * A finished run's entries are not dropped at once either: the node may still fail after its
 * round (Send and Wait's wait, for one), and its Retry On Fail re-runs the same run.
 *
 * Entries are held under the digest of their key (a message's identity holds its whole text), as
 * plain objects whose strings are shared with the output items; what one costs is estimated from
 * its string lengths plus fixed overheads, which the bound counts.
 */
interface Held {
	/** the run (execution and run index) that wrote it, as ledger.ts's Stored has it */
	run: string;
	/** the entry (a LedgerEntry of ledger.ts) */
	entry: object;
	/** when it was written (epoch ms) */
	at: number;
	/** the run with its workflow and node */
	runKey: string;
	bytes: number;
}

interface Run {
	keys: Set<string>;
	lastWrite: number;
	finished: boolean;
}

/** Map and Set slots, the Held object and string headers, per entry (measured: see test/adversarial/ledgerMemory.test.ts). */
const ENTRY_OVERHEAD_BYTES = 240;
/** An object's own slot per property, and a string's header. */
const SLOT_BYTES = 16;

/** What a plain value costs on the heap, roughly (strings counted at two bytes a character: any script may be UTF-16). */
function sizeOf(value: unknown, depth = 0): number {
	if (typeof value === 'string') return SLOT_BYTES + 2 * value.length;
	if (value === null || typeof value !== 'object' || depth > 4) return SLOT_BYTES;
	let bytes = SLOT_BYTES;
	// for…in rather than Object.entries: no array of pairs per object, for every message recorded.
	for (const key in value) {
		if (Object.prototype.hasOwnProperty.call(value, key)) bytes += SLOT_BYTES + key.length + sizeOf((value as Record<string, unknown>)[key], depth + 1);
	}
	return bytes;
}

const entries = new Map<string, Held>();
/** Runs in the order of their last write (oldest first). */
const runs = new Map<string, Run>();
let heldBytes = 0;
/** Until then every run that holds entries is protected: no need to look for one to evict. */
let nothingEvictableUntil = 0;

function drop(key: string): void {
	const held = entries.get(key);
	if (!held) return;
	entries.delete(key);
	heldBytes -= held.bytes;
	const run = runs.get(held.runKey);
	run?.keys.delete(key);
	if (run?.keys.size === 0) runs.delete(held.runKey);
}

function dropRun(runKey: string): void {
	for (const key of [...(runs.get(runKey)?.keys ?? [])]) drop(key);
	runs.delete(runKey);
}

/** Evicts whole runs, finished first, then open ones past their protection, until under the bound. */
function evict(now: number): void {
	if (heldBytes <= SEND_LEDGER.maxMemoryBytes || now < nothingEvictableUntil) return;
	for (const finishedFirst of [true, false]) {
		for (const [runKey, run] of runs) {
			if (heldBytes <= SEND_LEDGER.maxMemoryBytes) return;
			if (finishedFirst ? run.finished : now - run.lastWrite > SEND_LEDGER.openRunProtectionMs) dropRun(runKey);
		}
	}
	if (heldBytes > SEND_LEDGER.maxMemoryBytes) {
		const oldest = runs.values().next().value;
		nothingEvictableUntil = oldest ? oldest.lastWrite + SEND_LEDGER.openRunProtectionMs : 0;
	}
}

/** Keeps `entry` under `key` for `runKey`; evicts past the bound (see above). */
export function holdEntry(key: string, runKey: string, run: string, entry: object, at: number): void {
	drop(key);
	const now = Date.now();
	const bytes = 2 * key.length + sizeOf(entry) + ENTRY_OVERHEAD_BYTES;
	entries.set(key, { run, entry, at, runKey, bytes });
	heldBytes += bytes;
	const writer = runs.get(runKey) ?? { keys: new Set<string>(), lastWrite: now, finished: false };
	writer.keys.add(key);
	writer.lastWrite = now;
	runs.delete(runKey);
	runs.set(runKey, writer);
	evict(now);
}

/** The entry held under `key` with its run and time (ledger.ts's Stored), if any. */
export function heldEntry(key: string): { run: string; entry: object; at: number } | undefined {
	const held = entries.get(key);
	return held && { run: held.run, entry: held.entry, at: held.at };
}

/** The run finished: its entries are the first to go when the bound is reached. */
export function runFinished(runKey: string): void {
	const run = runs.get(runKey);
	if (!run) return;
	run.finished = true;
	nothingEvictableUntil = 0;
	evict(Date.now());
}

/** How much the in-process ledger holds (for the memory tests and benchmarks). */
export function heldSize(): { entries: number; bytes: number; finishedRuns: number } {
	let finishedRuns = 0;
	for (const run of runs.values()) if (run.finished) finishedRuns++;
	return { entries: entries.size, bytes: heldBytes, finishedRuns };
}

export function clearHeldEntries(): void {
	entries.clear();
	runs.clear();
	heldBytes = 0;
	nothingEvictableUntil = 0;
}

/** A bounded set of run keys, oldest first out. */
export class RunSet {
	private readonly runs = new Set<string>();

	has(runKey: string): boolean {
		return this.runs.has(runKey);
	}

	add(runKey: string): void {
		this.runs.add(runKey);
		if (this.runs.size > SEND_LEDGER.maxRuns) {
			const oldest = this.runs.values().next().value;
			if (oldest !== undefined) this.runs.delete(oldest);
		}
	}

	clear(): void {
		this.runs.clear();
	}
}
