import type { DeduplicationHelperFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { FINISHED_RUN_RETRY_WINDOW_MS, NODE_ROW } from './rowBounds';
import { triedAgain } from '../transport/triedAgain';

/** The part of n8n's processed-data helpers (the Remove Duplicates node's store) the marks use. */
export type ProcessedData = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'removeProcessed' | 'getProcessedDataCount'>;

export const ROW_OPTIONS = { mode: 'entries' as const, get maxEntries() { return NODE_ROW.maxMarks; } };

/**
 * n8n's helpers read the node's row, then insert it when there is none or rewrite it whole. Two n8n
 * processes writing a node's first marks at the same moment both insert, and one fails on the
 * table's key ("duplicate key value", seen with queue mode's two workers on PostgreSQL). A call
 * writes all or nothing, and recording or removing a mark twice changes nothing, so a failed call
 * is made again (NODE_ROW.retryDelaysMs) before its error fails the send.
 */
function triedOnFailure(helpers: ProcessedData): ProcessedData {
	const delays = NODE_ROW.retryDelaysMs;
	return {
		checkProcessedAndRecord: async (items, scope, options) => await triedAgain(delays, async () => await helpers.checkProcessedAndRecord(items, scope, options)),
		removeProcessed: async (items, scope, options) => await triedAgain(delays, async () => await helpers.removeProcessed(items, scope, options)),
		getProcessedDataCount: async (scope, options) => await triedAgain(delays, async () => await helpers.getProcessedDataCount(scope, options)),
	};
}

interface Waiter {
	resolve: () => void;
	reject: (error: unknown) => void;
}

/**
 * One change of the row in the order asked: consecutive changes of one kind share a call (removals
 * at most NODE_ROW.removeAtMost marks a call). A removal's marks are made when written.
 */
interface Change {
	add: boolean;
	/** written without waiting for a gather (a mark made in a limiter slot) */
	now?: boolean;
	count: number;
	marks: string[] | (() => string[]);
	waiter?: Waiter;
}

/** A finished run whose marks stay a little while (see `finished`): its marks in the order written, a batch at a time. */
interface FinishedRun {
	at: number;
	marks: number;
	batches: () => Array<{ count: number; marks: () => string[] }>;
}

/**
 * One node's processed-data row (workflow + node), which n8n reads and rewrites whole on every
 * call. Every call for the row is made here, one after another, so that two executions in this
 * process never overwrite each other's row.
 *
 * Group commit: a change waits only for the write under way, not for a timer, so a lone send's
 * mark is written at once; the changes that arrive meanwhile share the next write. Only a large
 * row (a long run's marks) is written less often (a gather of NODE_ROW.flushCostFactor
 * × the last write's time), so that rewriting it takes a bounded share of n8n's time.
 *
 * The row stays small: a finished run's marks leave it once NODE_ROW.keepFinishedMarks
 * newer finished marks follow them, or after the retry hour, in one removal for many runs.
 */
export class NodeRow {
	private tail: Promise<unknown> = Promise.resolve();
	private queue: Change[] = [];
	private flushing: Promise<void> | undefined;
	private lastWriteMs = 0;
	/** the row's size in marks, as far as this process knows (read once, then counted) */
	size: number | undefined;
	private finishedRuns = new Map<string, FinishedRun>();
	private finishedMarks = 0;
	/** until when a long run asks for gathers (its row stays small: its blocks, ledger/markBlocks.ts) */
	private longRunUntil = 0;
	/** ends a gather early: a change that must be written now arrived */
	private wake: (() => void) | undefined;
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

	/** Resolves once a write holding `marks` went through (`now`: without a gather); rejects with its error. */
	async add(marks: string[], now = false): Promise<void> {
		if (marks.length === 0) return;
		await new Promise<void>((resolve, reject) => this.change({ add: true, now, count: marks.length, marks, waiter: { resolve, reject } }));
	}

	/** Removes `marks` in the next write (not awaited by a send: `written` waits for it). */
	remove(marks: string[] | (() => string[]), count = Array.isArray(marks) ? marks.length : 1): void {
		if (count > 0) this.change({ add: false, count, marks });
	}

	/** Resolves when every change asked so far is written (or failed). */
	async written(): Promise<void> {
		while (this.flushing) await this.flushing;
	}

	/** Whether a change is written at once (no gather): the row is small, or its size not read yet. */
	small(): boolean {
		return this.size === undefined || this.size <= NODE_ROW.smallRowMarks;
	}

	/**
	 * A long run is writing: gather its changes for at least NODE_ROW.longRunGatherMs for a while,
	 * however small the row, so that it is written a few times a second, not once a message.
	 */
	longRun() {
		this.longRunUntil = Date.now() + NODE_ROW.flushMaxMs;
	}

	/** Counts marks a call added (or took out) of the row outside the queue (look-ups, key claims). */
	counted(delta: number) {
		if (this.size !== undefined) this.size = Math.max(0, this.size + delta);
	}

	/**
	 * A run finished: an execution Retry re-runs it only when n8n stopped right after it (the node
	 * returned, the execution was not saved yet), so only the last finished runs' marks are kept.
	 * `batches` answers them in the order they were written: n8n's removal searches the row from
	 * its oldest mark and closes the gap, so marks taken out in the row's order cost one step each
	 * (out of order, a run of 100,000 messages took minutes). A run finished again (an AI tool
	 * called twice in one execution) replaces its entry.
	 */
	finished(runKey: string, marks: number, batches: FinishedRun['batches']) {
		const earlier = this.finishedRuns.get(runKey);
		if (earlier) {
			this.finishedMarks -= earlier.marks;
			this.finishedRuns.delete(runKey);
		}
		this.finishedRuns.set(runKey, { at: Date.now(), marks, batches });
		this.finishedMarks += marks;
		this.forgetDue();
	}

	/** Takes the oldest finished runs out once twice the kept tail is reached (one removal for many), or past their hour. */
	private forgetDue() {
		const { keepFinishedMarks } = NODE_ROW;
		const due = Date.now() - FINISHED_RUN_RETRY_WINDOW_MS;
		const over = this.finishedMarks > 2 * keepFinishedMarks;
		for (const [runKey, run] of this.finishedRuns) {
			if (!(over && this.finishedMarks > keepFinishedMarks) && run.at > due) break;
			this.finishedRuns.delete(runKey);
			this.finishedMarks -= run.marks;
			for (const batch of run.batches()) this.remove(batch.marks, batch.count);
		}
	}

	private change(change: Change) {
		this.queue.push(change);
		if (change.now) this.wake?.();
		this.flushing ??= this.flush();
	}

	/** Waits `ms` for more changes, less when one must be written now. */
	private async gather(ms: number) {
		if (this.queue.some((c) => c.now)) return;
		await new Promise<void>((resolve) => {
			this.wake = resolve;
			void sleep(ms).then(resolve);
		});
		this.wake = undefined;
	}

	private async flush(): Promise<void> {
		while (this.queue.length > 0) {
			const { flushCostFactor, flushMaxMs, removeAtMost } = NODE_ROW;
			this.size ??= await this.serial(async (h) => await h.getProcessedDataCount('node', ROW_OPTIONS)).catch(() => 0);
			// A small row is written at once; a large one gathers what comes meanwhile (bounded: a post may be waiting).
			const gather = Math.min(flushMaxMs, flushCostFactor * this.lastWriteMs);
			if (Date.now() < this.longRunUntil) await this.gather(Math.max(NODE_ROW.longRunGatherMs, gather));
			else if (!this.small()) await this.gather(gather);
			const changes = this.queue;
			this.queue = [];
			const started = Date.now();
			// Consecutive changes of one kind share one call; kinds keep their order (a mark removed, then added again).
			for (let from = 0; from < changes.length; ) {
				let to = from + 1;
				let count = changes[from].count;
				while (to < changes.length && changes[to].add === changes[from].add && (changes[from].add || count + changes[to].count <= removeAtMost)) count += changes[to++].count;
				await this.write(changes.slice(from, to));
				from = to;
			}
			this.lastWriteMs = Date.now() - started;
		}
		this.flushing = undefined;
	}

	private async write(changes: Change[]) {
		const marksOf = (c: Change) => (typeof c.marks === 'function' ? c.marks() : c.marks);
		const marks = changes.length === 1 ? marksOf(changes[0]) : changes.flatMap(marksOf);
		try {
			if (changes[0].add) {
				const result = await this.serial(async (h) => await h.checkProcessedAndRecord(marks, 'node', ROW_OPTIONS));
				this.counted(result.new.length);
			} else {
				await this.serial(async (h) => await h.removeProcessed(marks, 'node', ROW_OPTIONS));
				this.counted(-marks.length);
			}
			for (const c of changes) c.waiter?.resolve();
		} catch (error) {
			// A removal that failed leaves marks a retry would still honour: the safe side.
			for (const c of changes) c.waiter?.reject(error);
		}
	}
}

const rows = new Map<string, NodeRow>();

/** The row of one workflow's node (workflow \0 node), with the helpers of the current execution. */
export function rowOf(scopeKey: string, helpers: ProcessedData): NodeRow {
	let row = rows.get(scopeKey);
	if (row) row.use(helpers);
	else rows.set(scopeKey, (row = new NodeRow(helpers)));
	return row;
}

/** Runs `call` on the node's row once every change queued before it is written (keyClaims.ts shares the row). */
export async function onNodeRow<T>(scopeKey: string, helpers: ProcessedData, call: (helpers: ProcessedData) => Promise<T>): Promise<T> {
	const row = rowOf(scopeKey, helpers);
	await row.written();
	return await row.serial(call);
}

/** Resolves once every change of the node's row asked so far is written (or failed). */
export async function nodeRowWritten(scopeKey: string): Promise<void> {
	await rows.get(scopeKey)?.written();
}

/** Adds marks to the node's row in its next group write (keyClaims.ts's "sent" marks). */
export async function addNodeMarks(scopeKey: string, helpers: ProcessedData, marks: string[]): Promise<void> {
	await rowOf(scopeKey, helpers).add(marks);
}
