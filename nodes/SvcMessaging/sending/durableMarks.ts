import type { DeduplicationHelperFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { SEND_LEDGER } from './ledgerBounds';
import { triedAgain } from './triedAgain';

/** The part of n8n's processed-data helpers (the Remove Duplicates node's store) the marks use. */
export type ProcessedData = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'removeProcessed'>;

/**
 * The send ledger's record in n8n's own database, for an n8n without the shared Redis: it outlives
 * a restart of n8n (an out-of-memory kill, an upgrade), which the in-process ledger does not.
 *
 * It is n8n's processed-data table, through the helpers n8n gives every node: one row per
 * workflow and node (scope `node`), holding a set of marks as hashes. Each call reads and writes
 * that whole row, so marks are written in groups (one call per SEND_LEDGER.durable.flushMs or
 * more, however many messages are under way), and the row keeps the node's last
 * SEND_LEDGER.durable.maxMarks marks. n8n's Data Tables are not open to community nodes (n8n's
 * proxy allows only its own Data table and Evaluation nodes), so they were not an option.
 *
 * Per message, `u` (under way) is written BEFORE it is posted and `a` (accepted) when the service
 * accepted it; a message refused unsent loses its `u`. Each mark carries the half-day it was
 * written in, and a retry honours marks of this and the previous half-day (12 to 24 hours): a
 * retry the morning after a crash finds the night's sends; yesterday's identical reminder does
 * not hold today's retry back.
 *
 * n8n's helpers can only check a mark by recording it. A retry's look-up therefore records the
 * `u` marks of the messages it asks about: true of every message it then posts (it marks them
 * under way anyway), and the safe side for one it does not (a later retry reports it as of
 * unknown outcome instead of sending it again). The `a` marks it asked about and did not find are
 * removed again at once. All calls for one node are made one after another in this process, so
 * that two executions never overwrite each other's row.
 */
export interface DurableMarks {
	/** What earlier tries did with these messages (by digest), after a restart. Marks them under way. */
	lookup(digests: string[]): Promise<Array<'accepted' | 'unknown' | undefined>>;
	/** Written before the messages are posted; resolves once the row holds them. */
	begin(digests: string[]): Promise<void>;
	accepted(digests: string[]): Promise<void>;
	/** Surely not sent: a retry may send them. */
	notSent(digests: string[]): Promise<void>;
	/**
	 * A run finished: its marks go once its retry window has passed (at the node's next write in
	 * this process), so that the row, rewritten whole by every call, stays small.
	 */
	forgetLater(digestsOf: () => string[]): void;
	/** Resolves once every mark added so far is written (or failed). */
	written(): Promise<void>;
}

const OPTIONS = { mode: 'entries' as const, get maxEntries() { return SEND_LEDGER.durable.maxMarks; } };
const halfDay = (at: number) => Math.floor(at / SEND_LEDGER.durable.bucketMs);
const mark = (kind: 'u' | 'a', digest: string, bucket: number) => `${kind}:${digest}:${bucket}`;

/**
 * n8n's helpers read the node's row, then insert it when there is none or rewrite it whole. Two n8n
 * processes writing a node's first marks at the same moment both insert, and one fails on the
 * table's key ("duplicate key value", seen with queue mode's two workers on PostgreSQL). A call
 * writes all or nothing, and recording or removing a mark twice changes nothing, so a failed call
 * is made again (SEND_LEDGER.durable.retryDelaysMs) before its error fails the send.
 */
function triedOnFailure(helpers: ProcessedData): ProcessedData {
	const delays = SEND_LEDGER.durable.retryDelaysMs;
	return {
		checkProcessedAndRecord: async (items, scope, options) => await triedAgain(delays, async () => await helpers.checkProcessedAndRecord(items, scope, options)),
		removeProcessed: async (items, scope, options) => await triedAgain(delays, async () => await helpers.removeProcessed(items, scope, options)),
	};
}

/** One queue per node (workflow \0 node): its row is read and written whole. */
class NodeRow {
	private tail: Promise<unknown> = Promise.resolve();
	private pending: string[] = [];
	private waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
	private flushing: Promise<void> | undefined;
	private lastFlushMs = 0;
	/** finished runs whose marks go once their retry window has passed, oldest first */
	private finished: Array<{ at: number; digestsOf: () => string[] }> = [];

	private helpers: ProcessedData;

	constructor(helpers: ProcessedData) {
		this.helpers = triedOnFailure(helpers);
	}

	use(helpers: ProcessedData) {
		this.helpers = triedOnFailure(helpers);
	}

	/** Runs `call` after every call queued before it. */
	serial<T>(call: (helpers: ProcessedData) => Promise<T>): Promise<T> {
		const next = this.tail.then(async () => await call(this.helpers));
		this.tail = next.catch(() => undefined);
		return next;
	}

	forgetLater(digestsOf: () => string[]) {
		this.finished.push({ at: Date.now(), digestsOf });
	}

	/** Removes the marks of finished runs past their window (n8n searches the row for each mark: small runs only). */
	private async forgetDue(): Promise<void> {
		const due = Date.now() - SEND_LEDGER.finishedRunRetryWindowMs;
		while (this.finished.length > 0 && this.finished[0].at <= due) {
			const digests = this.finished.shift()!.digestsOf();
			if (digests.length === 0 || digests.length > SEND_LEDGER.durable.forgetAtMost) continue;
			// The run may have written in this half-day or either of the two before it (its hour spans at most two).
			const now = halfDay(Date.now());
			const buckets = [now, now - 1, now - 2];
			const marks = digests.flatMap((d) => buckets.flatMap((b) => [mark('u', d, b), mark('a', d, b)]));
			await this.serial(async (helpers) => await helpers.removeProcessed(marks, 'node', OPTIONS)).catch(() => undefined);
		}
	}

	/** Group commit: resolves once a write holding `marks` went through. */
	async add(marks: string[]): Promise<void> {
		if (marks.length === 0) return;
		for (const one of marks) this.pending.push(one);
		const written = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
		this.flushing ??= this.flush();
		await written;
	}

	/** Resolves when every mark added so far is written (or failed): a look-up reads after them. */
	async written(): Promise<void> {
		while (this.flushing) await this.flushing;
	}

	private async flush(): Promise<void> {
		while (this.pending.length > 0) {
			// A short gather lets the marks of many posts share one write; the wait grows with the
			// row's cost, so a large row is written less often instead of taking more of the CPU.
			const { flushMs, flushCostFactor, flushMaxMs } = SEND_LEDGER.durable;
			await sleep(Math.min(flushMaxMs, Math.max(flushMs, flushCostFactor * this.lastFlushMs)));
			const marks = this.pending;
			const waiting = this.waiting;
			this.pending = [];
			this.waiting = [];
			await this.forgetDue();
			const started = Date.now();
			try {
				await this.serial(async (helpers) => await helpers.checkProcessedAndRecord(marks, 'node', OPTIONS));
				for (const waiter of waiting) waiter.resolve();
			} catch (error) {
				for (const waiter of waiting) waiter.reject(error);
			}
			this.lastFlushMs = Date.now() - started;
		}
		this.flushing = undefined;
	}
}

const rows = new Map<string, NodeRow>();

function rowOf(scopeKey: string, helpers: ProcessedData): NodeRow {
	let row = rows.get(scopeKey);
	if (row) row.use(helpers);
	else rows.set(scopeKey, (row = new NodeRow(helpers)));
	return row;
}

/** Runs `call` on the node's row once every call and mark queued before it is written (keyClaims.ts shares the row). */
export async function onNodeRow<T>(scopeKey: string, helpers: ProcessedData, call: (helpers: ProcessedData) => Promise<T>): Promise<T> {
	const row = rowOf(scopeKey, helpers);
	await row.written();
	return await row.serial(call);
}

/** Resolves once every mark added to the node's row so far is written (or failed). */
export async function nodeRowWritten(scopeKey: string): Promise<void> {
	await rows.get(scopeKey)?.written();
}

/** Adds marks to the node's row in its next group write (keyClaims.ts's "sent" marks). */
export async function addNodeMarks(scopeKey: string, helpers: ProcessedData, marks: string[]): Promise<void> {
	await rowOf(scopeKey, helpers).add(marks);
}

/** The durable marks of one workflow's node, kept in n8n's database through `helpers`. */
export function durableMarks(scopeKey: string, helpers: ProcessedData): DurableMarks {
	const node = rowOf(scopeKey, helpers);
	const bucketsNow = () => {
		const now = halfDay(Date.now());
		return [now, now - 1];
	};
	return {
		async lookup(digests) {
			if (digests.length === 0) return [];
			await node.written();
			const buckets = bucketsNow();
			return await node.serial(async (h) => {
				const underWay = digests.flatMap((d) => buckets.map((b) => mark('u', d, b)));
				const begun = new Set((await h.checkProcessedAndRecord(underWay, 'node', OPTIONS)).processed.map(String));
				const wasBegun = digests.map((d) => buckets.some((b) => begun.has(mark('u', d, b))));
				const askAccepted = digests.flatMap((d, i) => (wasBegun[i] ? buckets.map((b) => mark('a', d, b)) : []));
				const found = askAccepted.length ? await h.checkProcessedAndRecord(askAccepted, 'node', OPTIONS) : { new: [], processed: [] };
				// Asking recorded the accepted marks not found: they must go again, or a later retry would
				// take these messages of unknown outcome for accepted ones.
				if (found.new.length) await h.removeProcessed(found.new, 'node', OPTIONS);
				const accepted = new Set(found.processed.map(String));
				return digests.map((d, i) => {
					if (!wasBegun[i]) return undefined;
					return buckets.some((b) => accepted.has(mark('a', d, b))) ? 'accepted' : 'unknown';
				});
			});
		},
		async begin(digests) {
			await node.add(digests.map((d) => mark('u', d, halfDay(Date.now()))));
		},
		async accepted(digests) {
			await node.add(digests.map((d) => mark('a', d, halfDay(Date.now()))));
		},
		async notSent(digests) {
			if (digests.length === 0) return;
			const buckets = bucketsNow();
			await node.serial(async (h) => await h.removeProcessed(digests.flatMap((d) => buckets.map((b) => mark('u', d, b))), 'node', OPTIONS));
		},
		forgetLater: (digestsOf) => node.forgetLater(digestsOf),
		written: async () => await node.written(),
	};
}
