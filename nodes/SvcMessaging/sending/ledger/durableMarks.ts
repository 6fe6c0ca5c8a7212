import { SEND_LEDGER } from './ledgerBounds';
import { ROW_OPTIONS, rowOf, type ProcessedData } from '../stores/nodeRow';

export type { ProcessedData } from '../stores/nodeRow';
export { addNodeMarks, nodeRowWritten, onNodeRow } from '../stores/nodeRow';

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
	/** What earlier tries did with these messages, after a restart. Leaves the row as it was. */
	lookup(messages: readonly string[]): Promise<Array<'accepted' | 'unknown' | undefined>>;
	/** Written right before the messages are posted; resolves once the row holds them. */
	begin(messages: readonly string[]): Promise<void>;
	/** Joins the next write; `written` resolves once it is in. */
	accepted(messages: readonly string[]): void;
	/** Surely not sent: a retry may send them. Joins the next write. */
	notSent(messages: readonly string[]): void;
	/** The run finished: its marks go once newer finished runs' marks follow (nodeRow.ts). */
	finished(runKey: string): void;
	/** Resolves once every mark added so far is written (or failed). */
	written(): Promise<void>;
	/** Whether the row is small enough to be written at once (SEND_LEDGER.durable.smallRowMarks). */
	quick(): boolean;
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

/**
 * The durable marks of one run of a workflow's node, kept in n8n's database through `helpers`;
 * `digestOf` names a message in the row (a digest of the workflow, the node and the message).
 */
export function durableMarks(scopeKey: string, helpers: ProcessedData, digestOf: (message: string) => string): DurableMarks {
	const row = rowOf(scopeKey, helpers);
	// One bucket for the whole run: its marks can be taken out again without searching for them.
	const bucket = halfDay(Date.now());
	const marksOf = (kind: 'u' | 'a', messages: readonly string[]) => messages.map((m) => mark(kind, digestOf(m), bucket));
	// What this run added, in order (the messages' own strings, no copy): taken out in the row's order when it finishes.
	const added: Array<{ kind: 'u' | 'a'; messages: readonly string[] }> = [];
	let count = 0;
	const notSent = new Set<string>();
	return {
		async lookup(messages) {
			if (messages.length === 0) return [];
			await row.written();
			const now = halfDay(Date.now());
			const buckets = [now, now - 1];
			const digests = messages.map(digestOf);
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
		async begin(messages) {
			if (messages.length === 0) return;
			added.push({ kind: 'u', messages });
			count += messages.length;
			await row.add(marksOf('u', messages)).catch((error: unknown) => {
				throw new DatabaseUnavailable(error);
			});
		},
		accepted(messages) {
			if (messages.length === 0) return;
			added.push({ kind: 'a', messages });
			count += messages.length;
			void row.add(marksOf('a', messages)).catch(() => undefined);
		},
		notSent(messages) {
			if (messages.length === 0) return;
			for (const m of messages) notSent.add(m);
			row.remove(marksOf('u', messages));
		},
		finished(runKey) {
			row.finished(runKey, count, () =>
				added.map(({ kind, messages }) => ({
					count: messages.length,
					// A message refused unsent lost its mark already: asked again, n8n would search the whole row for it.
					marks: () => marksOf(kind, notSent.size ? messages.filter((m) => !notSent.has(m)) : messages),
				})),
			);
		},
		written: async () => await row.written(),
		quick: () => row.small(),
	};
}
