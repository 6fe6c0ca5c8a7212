import { digest, redisAddress, type SharedLimitConfig } from '../../transport/redis';
import type { DurableMarks } from './durableMarks';
import type { EarlierEntry, RunIdentity, SendLedger } from './ledger';
import { SEND_LEDGER } from './ledgerBounds';
import { sharedLedger } from './ledgerShared';

/** Where a mark in n8n's database came from: it keeps no execution, output or time. */
const BEFORE_RESTART = { executionId: 'unknown (an earlier try, kept in n8n’s database)' };

const ACCEPTED_BEFORE: EarlierEntry = {
	outcome: 'accepted',
	json: {
		status: 'ACCEPTED',
		note: 'The service accepted this message in an earlier try; n8n’s database keeps only that, not its output (message ID).',
	},
	sentIn: BEFORE_RESTART,
};

const UNKNOWN_BEFORE: EarlierEntry = {
	outcome: 'unknown',
	message: 'it was being sent when n8n stopped, and its answer was not recorded',
	description: 'n8n’s database holds the mark written before it was posted, and no answer to it.',
	sentIn: BEFORE_RESTART,
};

/** A message with no mark of its own in a block an earlier try recorded whole (markBlocks.ts) with other content. */
const BLOCK_CHANGED: EarlierEntry = {
	outcome: 'unknown',
	message: 'an earlier try sent the messages around it, and n8n’s database records them as one block whose content has changed since',
	description:
		'The block’s record holds a different message in this place (an expression may give another text on a retry), so whether this one was sent is not known. It is not sent again.',
	sentIn: BEFORE_RESTART,
};

/** Send and Wait follows each message by its ID, which n8n's database does not keep. */
const ACCEPTED_UNFOLLOWABLE: EarlierEntry = {
	outcome: 'unknown',
	message: 'it was accepted in an earlier try, and n8n’s database keeps no message ID, so its delivery cannot be followed',
	description: 'It is not sent again. The dashboard’s message log shows its delivery.',
	sentIn: BEFORE_RESTART,
};

function lostWithRedis(config: SharedLimitConfig, since: number): EarlierEntry {
	return {
		outcome: 'unknown',
		message: `Redis at ${redisAddress(config)} lost the send ledger's entry of this message (its data began again at ${new Date(since).toISOString()})`,
		description:
			'n8n’s database shows it was being sent before then, and a Redis restarted without persistence forgets what became of it. ' +
			'Turn on Redis persistence (appendonly yes) so that the ledger outlives a restart of Redis.',
		sentIn: BEFORE_RESTART,
	};
}

/** How a message is named in n8n's database and Redis: a digest of the workflow, the node and the message (as earlier versions named it). */
export function messageDigestOf(identity: RunIdentity): (message: string) => string {
	return (message) => digest(`${identity.workflowId}\u0000${identity.nodeId}\u0000${message}`);
}

/**
 * The send ledger with its record in n8n's database (durableMarks.ts) beside the in-process one
 * and, when the limit is shared, beside Redis: messages are marked under way before they are
 * posted and accepted when they are. What this process holds answers first (it keeps the outputs).
 *
 * Without Redis, the marks are what a retry after n8n restarted finds. With Redis, they are read
 * only when Redis's data began within the ledger's lifetime (its epoch, ledgerShared.ts: a Redis
 * restarted without persistence begins again): a message Redis does not know that the marks show
 * under way is then refused as of unknown outcome, naming the cause, instead of sent again; one
 * never marked (a first use, an execution that failed before sending) is sent.
 */
export function withDurableMarks(
	ledger: SendLedger,
	identity: RunIdentity,
	marks: DurableMarks,
	{ shared, followsMessages }: { shared?: SharedLimitConfig; followsMessages?: boolean } = {},
): SendLedger {
	const epoch = async () => (shared ? await (await sharedLedger(shared, `${identity.workflowId}\u0000${identity.nodeId}`)).epoch() : 0);
	let dated: Promise<number> | undefined;
	return {
		consult: ledger.consult,
		plan: (units) => marks.plan(units),
		held: (identities) => ledger.held(identities),
		async lookup(identities) {
			const found = await ledger.lookup(identities);
			// Only an execution Retry can repeat a run that n8n's restart cut short; a new execution's
			// repeats (Retry On Fail, an AI tool called again) are this process's own entries.
			if (!identity.isRetry) return found;
			// What this process holds it judges itself (a finished run's entry past its hour, for one).
			const held = ledger.held(identities);
			const missing = found.flatMap((entry, i) => (entry || held[i] ? [] : [i]));
			if (missing.length === 0) return found;
			const since = await epoch();
			if (shared && Date.now() - since >= SEND_LEDGER.redisTtlMs) return found;
			const unknown = shared ? lostWithRedis(shared, since) : UNKNOWN_BEFORE;
			const durable = await marks.lookup(missing.map((i) => identities[i]));
			missing.forEach((i, n) => {
				if (durable[n] === 'accepted') found[i] = followsMessages ? ACCEPTED_UNFOLLOWABLE : ACCEPTED_BEFORE;
				else if (durable[n] === 'unknown') found[i] = unknown;
				else if (durable[n] === 'changed') found[i] = BLOCK_CHANGED;
			});
			return found;
		},
		async begin(identities) {
			// Redis's data is dated before anything goes through it, so that a later loss shows.
			dated ??= epoch();
			await dated;
			await Promise.all([ledger.begin(identities), marks.begin(identities)]);
		},
		async record(entries) {
			await ledger.record(entries);
			const accepted: string[] = [];
			const notSent: string[] = [];
			for (const [message, entry] of entries) {
				if (!entry) notSent.push(message);
				else if (entry.outcome === 'accepted') accepted.push(message);
			}
			// Not awaited: the next group write takes them, and the round waits for it before it returns
			// (stored). A crash before it leaves them "under way": a retry reports them as of unknown
			// outcome, never sends them again. A database failure here must not turn sent messages into errors.
			marks.accepted(accepted);
			marks.notSent(notSent);
		},
		stored: async () => await marks.written().catch(() => undefined),
		marksInSlot: (identities) => marks.inSlot(identities),
		olderRunAt: () => marks.olderRunAt(),
		async finish() {
			await ledger.finish();
			// A retry's run stays open (a second Retry must find what it sent), as in the ledger.
			if (identity.isRetry) return;
			marks.finished(`${identity.workflowId}\u0000${identity.nodeId}\u0000${identity.executionId}\u0000${identity.runIndex}`);
		},
	};
}
