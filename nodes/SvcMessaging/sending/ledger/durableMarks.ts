import { SEND_LEDGER } from './ledgerBounds';
import { lookupMarks } from './durableLookup';
import { MarkBlocks } from './markBlocks';
import { RunLead } from './runLead';
import { ROW_OPTIONS, rowOf, type ProcessedData } from '../../stores/nodeRow';

export type { ProcessedData } from '../../stores/nodeRow';
export { addNodeMarks, nodeRowWritten, onNodeRow } from '../../stores/nodeRow';

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
 * when the service accepted it; a message refused unsent loses its `u`. Past a long run's first
 * messages one lead mark (runLead.ts) takes the place of the `u` marks, and a message refused unsent
 * below it gets an `x` mark. Once the service accepted
 * every message of a block of consecutive ones, one mark takes the place of their marks
 * (markBlocks.ts), so a long run's row stays small. Each mark carries the
 * half-day its run began in, and a retry honours marks of this and the previous half-day (12 to 24
 * hours): a retry the morning after a crash finds the night's sends; yesterday's identical
 * reminder does not hold today's retry back.
 *
 * n8n's helpers can only check a mark by recording it, so a look-up takes out again at once every
 * mark it recorded by asking: a call refused after its look-up leaves nothing behind.
 */
export interface DurableMarks {
	/** The run's units in the round's order, which its blocks follow (a run of fewer than a block keeps a mark a message). */
	plan(units: ReadonlyArray<{ identity: string }>): void;
	/**
	 * What earlier tries did with these messages, after a restart (`changed`: no mark of its own, in a
	 * block an earlier try recorded whole with another content). Leaves the row as it was.
	 */
	lookup(messages: readonly string[]): Promise<Array<'accepted' | 'unknown' | 'changed' | undefined>>;
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
	/** Whether these messages' mark is made in their limiter slot: a long run's lead, or a small row's marks written at once (SEND_LEDGER.durable). */
	inSlot(messages: readonly string[]): boolean;
	/** After a look-up: when the run a Retry repeats began, if it is older than the marks honoured (olderRun.ts). */
	olderRunAt(): number | undefined;
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
type Kind = 'u' | 'a' | 'x';
const mark = (kind: Kind, digest: string, bucket: number) => `${kind}:${digest}:${bucket}`;

/**
 * The durable marks of one run of a workflow's node, kept in n8n's database through `helpers`;
 * `digestOf` names a message in the row (a digest of the workflow, the node and the message).
 */
export function durableMarks(scopeKey: string, helpers: ProcessedData, digestOf: (message: string) => string): DurableMarks {
	const row = rowOf(scopeKey, helpers);
	// One bucket for the whole run: its marks can be taken out again without searching for them.
	const bucket = halfDay(Date.now());
	let blocks: MarkBlocks | undefined;
	// A long run's digests were made once, with its blocks.
	const nameOf = (message: string) => blocks?.digestOf(message) ?? digestOf(message);
	// A long run's marks made flat from its packed digests (markBlocks.ts), the others from a template.
	const marksOf = (kind: Kind, messages: readonly string[]) => {
		const flat = blocks?.messageMarks(messages, `${kind}:`, `:${bucket}`);
		return messages.map((m, i) => flat?.[i] ?? mark(kind, digestOf(m), bucket));
	};
	// What this run added, in order (the messages' own strings, no copy): taken out in the row's order when it finishes.
	const added: Array<{ kind: Kind; messages: readonly string[] } | { kind: 'b'; level: number; block: number; marks: string[] }> = [];
	let count = 0;
	const notSent = new Set<string>();
	let first: string | undefined;
	let olderAt: number | undefined;
	// Past its first messages (by their place in the run, not by when they begin: a send window begins
	// hundreds at once) a long run is written in gathers, as a large row was (stores/rowBounds.ts).
	const from = SEND_LEDGER.durable.smallRowMarks / 2;
	const long = (messages: readonly string[]) => (blocks?.positionOf(messages[0]) ?? 0) >= from;
	// Marked in the limiter slot and written at once: a small row, not past a long run's first messages.
	const quick = (messages: readonly string[]) => row.small() && !long(messages);
	let lead: RunLead | undefined;
	// Chosen once a run, by the row's size when the run first reaches its lead: a large row keeps marks a message.
	let leading: boolean | undefined;
	const led = (messages: readonly string[]) => lead !== undefined && long(messages) && (leading ??= (row.size ?? 0) <= SEND_LEDGER.durable.leadRowMarks);
	// One past the last place with a `u` mark of its own (a Send Bulk call that began before the lead marks its messages).
	let uTo = 0;
	const inWholeBlock = (message: string) => blocks !== undefined && blocks.wholeLevel(message) >= 0;
	// Blocks whose parts' marks left the row during the run.
	const removedNow = new Set<string>();
	const removed = (level: number, block: number | undefined) => block !== undefined && removedNow.has(`${level}:${block}`);
	// The block's marks first, then its parts' marks go (a crash between leaves both: still accepted). A block
	// made whole by one call of more than a block (Send Bulk) keeps them until the run finishes: taking out thousands of
	// marks mid-run costs n8n a hash and a search each, and such a run writes its row a few times a call.
	const recordWhole = (level: number, block: number, acceptedNow: ReadonlySet<string>) => {
		const { whole, neighbours } = blocks!.marksOf(level, block, bucket);
		const marks = [whole, ...neighbours];
		added.push({ kind: 'b', level, block, marks });
		void row.add(marks).catch(() => undefined);
		let gone: string[];
		if (level === 0) {
			const messages = blocks!.messagesOf(block);
			// A lead's messages have no `u` mark to search the row for.
			const own = messages.filter((m) => blocks!.positionOf(m)! < uTo);
			gone = [...marksOf('u', own), ...marksOf('a', messages.filter((m) => !acceptedNow.has(m)))];
		} else {
			gone = blocks!.partsOf(level, block).flatMap((part) => {
				const below = blocks!.marksOf(level - 1, part, bucket);
				return [below.whole, ...below.neighbours];
			});
		}
		count += marks.length;
		if (acceptedNow.size > SEND_LEDGER.durable.blockMessages) return;
		// The leads below the blocks now whole go with them (not counted: the run counts its leads when it finishes).
		row.remove([...gone, ...(level === 0 && lead ? lead.below(blocks!.wholeUpTo()) : [])]);
		removedNow.add(`${level}:${block}`);
		count -= gone.length;
	};
	return {
		plan(units) {
			first = units[0]?.identity;
			blocks = units.length > SEND_LEDGER.durable.blockMessages ? new MarkBlocks(units, digestOf) : undefined;
			if (blocks?.levels.length === 0) blocks = undefined;
			lead = blocks && blocks.size > from ? new RunLead(row, blocks, bucket, from) : undefined;
		},
		async lookup(messages) {
			if (messages.length === 0) return [];
			await row.written();
			const ask = async (marks: string[]) =>
				await row
					.serial(async (h) => {
						const answer = await h.checkProcessedAndRecord(marks, 'node', ROW_OPTIONS);
						// Asking recorded every mark not found: it goes again, or a later retry would take a
						// message never posted for one under way.
						if (answer.new.length) await h.removeProcessed(answer.new, 'node', ROW_OPTIONS);
						return new Set(answer.processed.map(String));
					})
					.catch((error: unknown) => {
						throw new DatabaseUnavailable(error, true);
					});
			const { states, olderRunAt } = await lookupMarks(ask, { blocks, nameOf, first, from }, messages, halfDay(Date.now()));
			olderAt = olderRunAt;
			return states;
		},
		async begin(messages) {
			if (messages.length === 0) return;
			if (long(messages)) row.longRun();
			if (led(messages)) {
				const last = messages.reduce((top, m) => Math.max(top, blocks!.positionOf(m) ?? 0), 0);
				await lead!.cover(last).catch((error: unknown) => {
					throw new DatabaseUnavailable(error);
				});
				return;
			}
			added.push({ kind: 'u', messages });
			count += messages.length;
			uTo = blocks ? messages.reduce((top, m) => Math.max(top, (blocks!.positionOf(m) ?? -1) + 1), uTo) : uTo;
			// A slot waiting for a gather would idle the plan's rate.
			await row.add(marksOf('u', messages), quick(messages)).catch((error: unknown) => {
				throw new DatabaseUnavailable(error);
			});
		},
		accepted(messages) {
			if (messages.length === 0) return;
			const completed = blocks?.accepted(messages) ?? [];
			// A message whose block is now whole needs no mark of its own.
			const own = completed.length ? messages.filter((m) => !inWholeBlock(m)) : messages;
			if (own.length) {
				added.push({ kind: 'a', messages: own });
				count += own.length;
				void row.add(marksOf('a', own)).catch(() => undefined);
			}
			if (completed.length) {
				const acceptedNow = new Set(messages);
				for (const [level, block] of completed) recordWhole(level, block, acceptedNow);
			}
		},
		notSent(messages) {
			if (messages.length === 0) return;
			for (const m of messages) notSent.add(m);
			if (!led(messages)) return row.remove(marksOf('u', messages));
			added.push({ kind: 'x', messages });
			count += messages.length;
			void row.add(marksOf('x', messages)).catch(() => undefined);
		},
		finished(runKey) {
			if (!blocks) {
				row.finished(runKey, count, () =>
					added.map((batch) => {
						if (batch.kind === 'b') return { count: batch.marks.length, marks: () => batch.marks };
						const { kind, messages } = batch;
						// A message refused unsent lost its mark already: asked again, n8n would search the whole row for it.
						return { count: messages.length, marks: () => marksOf(kind, notSent.size ? messages.filter((m) => !notSent.has(m)) : messages) };
					}),
				);
				return;
			}
			// A long run's marks that stay are few once its blocks are whole: made now, so that the finished
			// run's entry (kept up to its retry hour) holds them and not the run's units and messages.
			const whole = blocks;
			const batches = added.map((batch) => {
				if (batch.kind === 'b') return removed(batch.level + 1, whole.parentOf(batch.level, batch.block)) ? [] : batch.marks;
				if (batch.kind === 'x') return marksOf('x', batch.messages);
				return marksOf(batch.kind, batch.messages.filter((m) => !notSent.has(m) && !removed(0, whole.blocksOf(m)[0])));
			});
			const leads = lead?.marks() ?? [];
			batches.push(leads);
			row.finished(runKey, count + leads.length, () => batches.map((marks) => ({ count: marks.length, marks: () => marks })));
		},
		written: async () => await row.written(),
		inSlot: (messages) => led(messages) || quick(messages),
		olderRunAt: () => olderAt,
	};
}
