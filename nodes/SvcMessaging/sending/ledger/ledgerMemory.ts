import { SEND_LEDGER } from './ledgerBounds';

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
 * Each run keeps what it wrote in three arrays, in the order written: the messages' identities
 * (the strings the send already made), their entries (the outputs' own objects) and times. No map
 * and no object per message: a Send Bulk of 100,000 costs 24 bytes a message here. Only a run that
 * may repeat an earlier one looks anything up (a retry, rare): `heldEntries` then reads the runs
 * of the workflow's node, the later entry of a message winning. Redis keys stay digests
 * (ledgerShared.ts). What a run holds is estimated from string lengths plus fixed overheads, which
 * the bound counts.
 */
interface Run {
	/** execution id \0 run index, as ledger.ts's Stored has it */
	run: string;
	/** the run with its workflow and node */
	runKey: string;
	/** the workflow and node */
	scopeKey: string;
	identities: string[];
	/** a LedgerEntry of ledger.ts each, as ledger.ts holds it */
	entries: object[];
	/** when each was written (epoch ms; an array of numbers only stores them unboxed, 8 bytes each) */
	times: number[];
	bytes: number;
	lastWrite: number;
	finished: boolean;
}

/** Per entry: three array slots and their spare capacity (measured: see test/adversarial/ledgerMemory.test.ts). */
const ENTRY_OVERHEAD_BYTES = 40;
/** Per run: its record and arrays. */
const RUN_OVERHEAD_BYTES = 400;
const OBJECT_HEADER_BYTES = 24;
const PROPERTY_BYTES = 8;
const STRING_HEADER_BYTES = 16;
const WIDE = /[\u0100-\uffff]/;

/** A string's heap size: one byte a character, two when any is outside Latin-1 (V8's two forms). */
const stringBytes = (text: string) => STRING_HEADER_BYTES + (WIDE.test(text) ? 2 : 1) * text.length;

/**
 * What a plain value costs on the heap, roughly; strings that other objects share (a batch ID, a
 * status) are counted for every entry, so this errs high.
 */
function sizeOf(value: unknown, depth = 0): number {
	if (typeof value === 'string') return stringBytes(value);
	if (value === null || typeof value !== 'object' || depth > 4) return 0;
	let bytes = OBJECT_HEADER_BYTES;
	// (for…in, not Object.entries: no arrays made for each of 100,000 entries)
	for (const key in value) {
		if (Object.prototype.hasOwnProperty.call(value, key)) bytes += PROPERTY_BYTES + sizeOf((value as Record<string, unknown>)[key], depth + 1);
	}
	return bytes;
}

/** Runs in the order of their last write (oldest first). */
const runs = new Map<string, Run>();
let heldBytes = 0;
let heldCount = 0;
/** The run last written to (the last in `runs`). */
let newest: Run | undefined;
/** Until then every run that holds entries is protected: no need to look for one to evict. */
let nothingEvictableUntil = 0;

function dropRun(record: Run): void {
	heldBytes -= record.bytes;
	heldCount -= record.identities.length;
	runs.delete(record.runKey);
	if (newest === record) newest = undefined;
}

/** Evicts whole runs, finished first, then open ones past their protection, until under the bound. */
function evict(now: number): void {
	if (heldBytes <= SEND_LEDGER.maxMemoryBytes || now < nothingEvictableUntil) return;
	for (const finishedFirst of [true, false]) {
		for (const record of [...runs.values()]) {
			if (heldBytes <= SEND_LEDGER.maxMemoryBytes) return;
			if (finishedFirst ? record.finished : now - record.lastWrite > SEND_LEDGER.openRunProtectionMs) dropRun(record);
		}
	}
	if (heldBytes > SEND_LEDGER.maxMemoryBytes) {
		const oldest = runs.values().next().value;
		nothingEvictableUntil = oldest ? oldest.lastWrite + SEND_LEDGER.openRunProtectionMs : 0;
	}
}

function runOf(scopeKey: string, runKey: string, run: string, now: number): Run {
	let record = runs.get(runKey);
	if (!record) {
		record = { run, runKey, scopeKey, identities: [], entries: [], times: [], bytes: RUN_OVERHEAD_BYTES, lastWrite: now, finished: false };
		heldBytes += RUN_OVERHEAD_BYTES;
	}
	record.lastWrite = now;
	// Last written, last in order (moved only when another run wrote since: not once per entry).
	if (newest !== record) {
		runs.delete(runKey);
		runs.set(runKey, record);
		newest = record;
	}
	return record;
}

/**
 * Keeps `entry` under `identity` in `scopeKey` (workflow and node) for `runKey`; evicts past the
 * bound (see above). A message held again (a resend of an unknown outcome) is added again: the
 * later entry wins, the earlier one counts until its run goes.
 */
export function holdEntry(scopeKey: string, identity: string, runKey: string, run: string, entry: object, at: number): void {
	const now = Date.now();
	const record = runOf(scopeKey, runKey, run, now);
	record.identities.push(identity);
	record.entries.push(entry);
	record.times.push(at);
	const bytes = stringBytes(identity) + sizeOf(entry) + ENTRY_OVERHEAD_BYTES;
	record.bytes += bytes;
	heldBytes += bytes;
	heldCount++;
	evict(now);
}

/**
 * The entries held under `identities` in `scopeKey`, in their order, each with its run and time
 * (ledger.ts's Stored), or undefined. Reads every run of the scope: for retries only.
 */
export function heldEntries(scopeKey: string, identities: string[]): Array<{ run: string; entry: object; at: number } | undefined> {
	const wanted = new Map<string, { record: Run; n: number } | undefined>();
	for (const identity of identities) wanted.set(identity, undefined);
	// The latest write of a message wins (runs are in the order of their last write, each run's
	// entries in the order written; times settle two runs that wrote in turn).
	for (const record of runs.values()) {
		if (record.scopeKey !== scopeKey) continue;
		record.identities.forEach((identity, n) => {
			if (!wanted.has(identity)) return;
			const current = wanted.get(identity);
			if (!current || record.times[n] >= current.record.times[current.n]) wanted.set(identity, { record, n });
		});
	}
	return identities.map((identity) => {
		const found = wanted.get(identity);
		return found && { run: found.record.run, entry: found.record.entries[found.n], at: found.record.times[found.n] };
	});
}


/** The run finished: its entries are the first to go when the bound is reached. */
export function runFinished(runKey: string): void {
	const record = runs.get(runKey);
	if (!record) return;
	record.finished = true;
	nothingEvictableUntil = 0;
	evict(Date.now());
}

/** How much the in-process ledger holds (for the memory tests and benchmarks). */
export function heldSize(): { entries: number; bytes: number; finishedRuns: number } {
	let finishedRuns = 0;
	for (const record of runs.values()) if (record.finished) finishedRuns++;
	return { entries: heldCount, bytes: heldBytes, finishedRuns };
}

export function clearHeldEntries(): void {
	runs.clear();
	newest = undefined;
	heldBytes = 0;
	heldCount = 0;
	nothingEvictableUntil = 0;
}

/** A bounded set of run keys, oldest first out, each with a time (epoch ms; 0 when none is kept). */
export class RunSet {
	private readonly runs = new Map<string, number>();

	has(runKey: string): boolean {
		return this.runs.has(runKey);
	}

	/** When the run was added, or undefined. */
	at(runKey: string): number | undefined {
		return this.runs.get(runKey);
	}

	add(runKey: string, at = 0): void {
		this.runs.set(runKey, at);
		if (this.runs.size > SEND_LEDGER.maxRuns) {
			const oldest = this.runs.keys().next().value;
			if (oldest !== undefined) this.runs.delete(oldest);
		}
	}

	clear(): void {
		this.runs.clear();
	}
}
