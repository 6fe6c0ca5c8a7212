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
 * Entries are held per scope (workflow and node) under the message's identity itself: the string
 * the send already made, so a held entry costs no key of its own (a digest per entry was a third
 * of an entry and a hash per message). Redis keys stay digests (ledgerRedis.ts). An entry is the
 * output's own object (strings shared with the output items) with its run and time; its cost is
 * estimated from string lengths plus fixed overheads, which the bound counts.
 */
interface Held {
	/** the run that wrote it */
	run: Run;
	/** the entry (a LedgerEntry of ledger.ts) */
	entry: object;
	/** when it was written, in whole seconds since SECONDS_BASE: a small integer, kept in the object itself */
	at: number;
}

interface Run {
	/** execution id \0 run index, as ledger.ts's Stored has it */
	run: string;
	/** the run with its workflow and node */
	runKey: string;
	scopeKey: string;
	scope: Map<string, Held>;
	/** entries it holds now */
	count: number;
	/** identities this run wrote (one may since belong to a later run: checked when dropped) */
	identities: string[];
	bytes: number;
	lastWrite: number;
	finished: boolean;
}

/** Map slots, the Held object and the key's string header, per entry (measured: see test/adversarial/ledgerMemory.test.ts). */
const ENTRY_OVERHEAD_BYTES = 150;
/** An object's own slot per property, and a string's header. */
const SLOT_BYTES = 16;
const SECONDS_BASE = Date.UTC(2020, 0, 1);

/** What a plain value costs on the heap, roughly (strings counted at two bytes a character: any script may be UTF-16). */
function sizeOf(value: unknown, depth = 0): number {
	if (typeof value === 'string') return SLOT_BYTES + 2 * value.length;
	if (value === null || typeof value !== 'object' || depth > 4) return SLOT_BYTES;
	let bytes = SLOT_BYTES;
	// (for…in, not Object.entries: no arrays made for each of 100,000 entries)
	for (const key in value) {
		if (Object.prototype.hasOwnProperty.call(value, key)) bytes += SLOT_BYTES + key.length + sizeOf((value as Record<string, unknown>)[key], depth + 1);
	}
	return bytes;
}

const entryBytes = (identity: string, entry: object) => 2 * identity.length + sizeOf(entry) + ENTRY_OVERHEAD_BYTES;

/** workflow \0 node → identity → entry */
const scopes = new Map<string, Map<string, Held>>();
/** Runs in the order of their last write (oldest first). */
const runs = new Map<string, Run>();
let heldBytes = 0;
let heldCount = 0;
/** The run last written to (the last in `runs`). */
let newest: Run | undefined;
/** Until then every run that holds entries is protected: no need to look for one to evict. */
let nothingEvictableUntil = 0;

function dropRun(record: Run): void {
	for (const identity of record.identities) {
		if (record.scope.get(identity)?.run !== record) continue;
		record.scope.delete(identity);
		heldCount--;
	}
	heldBytes -= record.bytes;
	runs.delete(record.runKey);
	if (newest === record) newest = undefined;
	if (record.scope.size === 0) scopes.delete(record.scopeKey);
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
	let scope = scopes.get(scopeKey);
	if (!scope) scopes.set(scopeKey, (scope = new Map()));
	let record = runs.get(runKey);
	if (!record) record = { run, runKey, scopeKey, scope, count: 0, identities: [], bytes: 0, lastWrite: now, finished: false };
	// Its scope emptied and went (another run's eviction): it holds nothing there, so it joins the current one.
	if (record.scope !== scope) record.scope = scope;
	record.lastWrite = now;
	// Last written, last in order (moved only when another run wrote since: not once per entry).
	if (newest !== record) {
		runs.delete(runKey);
		runs.set(runKey, record);
		newest = record;
	}
	return record;
}

/** Keeps `entry` under `identity` in `scopeKey` for `runKey`; evicts past the bound (see above). */
export function holdEntry(scopeKey: string, identity: string, runKey: string, run: string, entry: object, at: number): void {
	const now = Date.now();
	const record = runOf(scopeKey, runKey, run, now);
	const earlier = record.scope.get(identity);
	if (earlier) {
		// Replaced: what it cost leaves its run (estimated again: close enough for a bound).
		const before = earlier.run;
		const bytes = before.count === 1 ? before.bytes : Math.min(before.bytes, entryBytes(identity, earlier.entry));
		before.bytes -= bytes;
		before.count--;
		heldBytes -= bytes;
		heldCount--;
		if (before.count === 0 && before !== record) dropRun(before);
	}
	if (earlier?.run !== record) record.identities.push(identity);
	record.scope.set(identity, { run: record, entry, at: Math.round((at - SECONDS_BASE) / 1000) });
	const bytes = entryBytes(identity, entry);
	record.bytes += bytes;
	record.count++;
	heldBytes += bytes;
	heldCount++;
	evict(now);
}

/** The entry held under `identity` in `scopeKey` with its run and time (ledger.ts's Stored), if any. */
export function heldEntry(scopeKey: string, identity: string): { run: string; entry: object; at: number } | undefined {
	const held = scopes.get(scopeKey)?.get(identity);
	return held && { run: held.run.run, entry: held.entry, at: SECONDS_BASE + held.at * 1000 };
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
	scopes.clear();
	runs.clear();
	newest = undefined;
	heldBytes = 0;
	heldCount = 0;
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
