import { SEND_LEDGER } from './ledgerBounds';
import { ROW_OPTIONS, rowOf, type ProcessedData } from './nodeRow';

export type { ProcessedData } from './nodeRow';
export { addNodeMarks, nodeRowWritten, onNodeRow } from './nodeRow';

/**
 * The send ledger's record in n8n's own database, for an n8n without the shared Redis: it outlives
 * a restart of n8n (an out-of-memory kill, an upgrade), which the in-process ledger does not.
 *
 * It is n8n's processed-data table, through the helpers n8n gives every node: one row per
 * workflow and node (scope `node`), holding a set of marks as hashes, read and rewritten whole by
 * every call (nodeRow.ts keeps the calls in order, groups them and keeps the row small). n8n's Data
 * Tables are not open to community nodes (n8n's proxy allows only its own Data table and
 * Evaluation nodes), so they were not an option.
 *
 * Per message, `u` (under way) is written in the key limiter's slot, right before the request
 * leaves (a message still waiting for its turn is not marked: a Retry sends it), and `a` (accepted)
 * when the service accepted it; a message refused unsent loses its `u`. Each mark carries the
 * half-day its run began in, and a retry honours marks of this and the previous half-day (12 to 24
 * hours): a retry the morning after a crash finds the night's sends; yesterday's identical
 * reminder does not hold today's retry back.
 *
 * n8n's helpers can only check a mark by recording it, so a look-up takes out again at once every
 * mark it recorded by asking: a call refused after its look-up leaves nothing behind.
 */
export interface DurableMarks {
	/** What earlier tries did with these messages (by digest), after a restart. Leaves the row as it was. */
	lookup(digests: string[]): Promise<Array<'accepted' | 'unknown' | undefined>>;
	/** Written right before the messages are posted; resolves once the row holds them. */
	begin(digests: string[]): Promise<void>;
	/** Joins the next write; `written` resolves once it is in. */
	accepted(digests: string[]): void;
	/** Surely not sent: a retry may send them. Joins the next write. */
	notSent(digests: string[]): void;
	/**
	 * The run finished. `each` visits its messages in the order sent, with whether each was
	 * accepted; their marks go once newer finished runs' marks follow (nodeRow.ts).
	 */
	finished(runKey: string, count: number, each: (visit: (digest: string, accepted: boolean) => void) => void): void;
	/** Resolves once every mark added so far is written (or failed). */
	written(): Promise<void>;
}

/** n8n's database did not take a mark written before a post: that post is not made. */
export class DatabaseUnavailable extends Error {
	readonly description: string;

	constructor(reason: unknown, reading = false) {
		super(`n8n’s database did not ${reading ? 'answer the send ledger’s look-up of' : 'take the send ledger’s record of'} this message, so it was not sent`);
		const said = reason instanceof Error ? reason.message : String(reason);
		this.description = `The send ledger keeps, in n8n’s own database, what was sent, so that no Retry sends it twice. The database said: ${said}. Nothing was sent for this item; run the node again once n8n’s database answers.`;
	}
}

const halfDay = (at: number) => Math.floor(at / SEND_LEDGER.durable.bucketMs);
const mark = (kind: 'u' | 'a', digest: string, bucket: number) => `${kind}:${digest}:${bucket}`;

/** The durable marks of one run of a workflow's node, kept in n8n's database through `helpers`. */
export function durableMarks(scopeKey: string, helpers: ProcessedData): DurableMarks {
	const row = rowOf(scopeKey, helpers);
	// One bucket for the whole run: its marks can be taken out again without searching for them.
	const bucket = halfDay(Date.now());
	return {
		async lookup(digests) {
			if (digests.length === 0) return [];
			await row.written();
			const now = halfDay(Date.now());
			const buckets = [now, now - 1];
			const asked = digests.flatMap((d) => buckets.flatMap((b) => [mark('u', d, b), mark('a', d, b)]));
			const found = await row
				.serial(async (h) => {
				const answer = await h.checkProcessedAndRecord(asked, 'node', ROW_OPTIONS);
				// Asking recorded every mark not found: it goes again, or a later retry would take a
				// message never posted for one under way.
				if (answer.new.length) await h.removeProcessed(answer.new, 'node', ROW_OPTIONS);
				return new Set(answer.processed.map(String));
				})
				.catch((error: unknown) => {
					throw new DatabaseUnavailable(error, true);
				});
			return digests.map((d) => {
				if (buckets.some((b) => found.has(mark('a', d, b)))) return 'accepted';
				return buckets.some((b) => found.has(mark('u', d, b))) ? 'unknown' : undefined;
			});
		},
		async begin(digests) {
			await row.add(digests.map((d) => mark('u', d, bucket))).catch((error: unknown) => {
				throw new DatabaseUnavailable(error);
			});
		},
		accepted(digests) {
			if (digests.length) void row.add(digests.map((d) => mark('a', d, bucket))).catch(() => undefined);
		},
		notSent(digests) {
			row.remove(digests.map((d) => mark('u', d, bucket)));
		},
		finished(runKey, count, each) {
			row.finished(runKey, 2 * count, () => {
				const marks: string[] = [];
				each((d, accepted) => {
					marks.push(mark('u', d, bucket));
					if (accepted) marks.push(mark('a', d, bucket));
				});
				return marks;
			});
		},
		written: async () => await row.written(),
	};
}
