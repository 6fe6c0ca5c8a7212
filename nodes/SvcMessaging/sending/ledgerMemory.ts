import { SEND_LEDGER } from '../transport/service';

/**
 * The in-process part of the send ledger: bounded by estimated bytes (SEND_LEDGER.maxMemoryBytes).
 * Past the bound, the entries of finished runs go first (an execution Retry never re-runs a
 * finished run), oldest run first; only then the oldest entries of open runs. A finished run's
 * entries are not dropped at once: the node may still fail after its round (Send and Wait's wait,
 * for one), and its Retry On Fail re-runs the same run, which must find what it sent.
 *
 * Entries are held as their JSON under the digest of their key (a message's identity holds its
 * whole text): what one costs is then its string lengths plus a fixed overhead, which the bound counts.
 */
interface Held {
	/** the entry's JSON (a Stored of ledger.ts) */
	json: string;
	/** the run (workflow, node, execution, run index) that wrote it */
	runKey: string;
	bytes: number;
}

/** Map and Set slots, the Held object and string headers, per entry (measured: see test/adversarial/ledgerMemory.test.ts). */
const ENTRY_OVERHEAD_BYTES = 240;

const entries = new Map<string, Held>();
const keysOfRun = new Map<string, Set<string>>();
/** Finished runs that still hold entries, oldest first: the first to go past the bound. */
const finishedRuns = new Set<string>();
let heldBytes = 0;

function drop(key: string): void {
	const held = entries.get(key);
	if (!held) return;
	entries.delete(key);
	heldBytes -= held.bytes;
	const keys = keysOfRun.get(held.runKey);
	keys?.delete(key);
	if (keys?.size === 0) {
		keysOfRun.delete(held.runKey);
		finishedRuns.delete(held.runKey);
	}
}

function dropRun(runKey: string): void {
	for (const key of [...(keysOfRun.get(runKey) ?? [])]) drop(key);
	keysOfRun.delete(runKey);
	finishedRuns.delete(runKey);
}

/** Keeps `json` under `key` for `runKey`; drops the oldest entries past the bound. */
export function holdEntry(key: string, runKey: string, json: string): void {
	drop(key);
	// Strings count two bytes a character: a message in any script may be stored as UTF-16.
	const bytes = 2 * (key.length + json.length) + ENTRY_OVERHEAD_BYTES;
	entries.set(key, { json, runKey, bytes });
	heldBytes += bytes;
	let keys = keysOfRun.get(runKey);
	if (!keys) keysOfRun.set(runKey, (keys = new Set()));
	keys.add(key);
	while (heldBytes > SEND_LEDGER.maxMemoryBytes) {
		const finished = finishedRuns.values().next().value;
		if (finished !== undefined) {
			dropRun(finished);
			continue;
		}
		const oldest = entries.keys().next().value;
		if (oldest === undefined) break;
		drop(oldest);
	}
}

/** The JSON held under `key`, if any. */
export function heldEntry(key: string): string | undefined {
	return entries.get(key)?.json;
}

/** The run finished: its entries are the first to go when the bound is reached. */
export function runFinished(runKey: string): void {
	if (keysOfRun.has(runKey)) finishedRuns.add(runKey);
}

/** How much the in-process ledger holds (for the memory tests and benchmarks). */
export function heldSize(): { entries: number; bytes: number; finishedRuns: number } {
	return { entries: entries.size, bytes: heldBytes, finishedRuns: finishedRuns.size };
}

export function clearHeldEntries(): void {
	entries.clear();
	keysOfRun.clear();
	finishedRuns.clear();
	heldBytes = 0;
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
