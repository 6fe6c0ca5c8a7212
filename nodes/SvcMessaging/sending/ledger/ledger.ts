import type { IDataObject } from 'n8n-workflow';

import { digest, type SharedLimitConfig } from '../../transport/redis';
import { SEND_LEDGER } from './ledgerBounds';
import { clearHeldEntries, heldEntries, holdEntry, RunSet, runFinished } from './ledgerMemory';
import { sharedLedger } from './ledgerShared';

/**
 * What the send operations already did, so that no message is sent twice when a user recovers:
 * n8n's Retry On Fail re-runs the node in the same execution, and the executions list's Retry
 * starts a new execution (mode `retry`) at the failed node with its original input.
 *
 * A message is recorded under the workflow, the node and exactly what was sent to its recipient
 * (the request body, or number + message + sender + options + variables for bulk), numbered when
 * the same message occurs more than once in one run. A run looks the ledger up only when it may
 * repeat an earlier one: when it is an execution retry, or when this node already sent in this
 * execution and run. A new execution is never suppressed. An execution retry matches entries of
 * runs that did not finish, and of runs that finished within SEND_LEDGER.finishedRunRetryWindowMs
 * (one hour, counted from when the run finished) before it: a run that finished is re-run by a retry only when the execution failed
 * after the node succeeded, before n8n saved its progress (off by default), and such a Retry comes
 * soon; so it sends none of them again, while yesterday's identical, successful message does not
 * hold back today's retry. A run is finished only when its items are: Send and Wait finishes its
 * run when the wait ends, not when it posts. Runs of retries never count as finished, so a second
 * Retry of the same failed execution finds what the first one sent.
 *
 * n8n does not tell a node which execution a retry retries (`retryOf` stays in n8n's CLI layer:
 * IWorkflowExecuteAdditionalData has no such field, n8n 1.x and 2.x alike), so a match can come from
 * another failed execution of the same node with the same message: each match names the execution
 * and time it came from (`sentIn`).
 *
 * Entries live in this process (ledgerMemory.ts: bounded by bytes, finished runs' entries dropped first)
 * and, when the credential shares its rate limit through Redis, in Redis (ledgerShared.ts) so that a
 * retry on another worker or after a restart is covered. With Redis, every message is written there
 * as "under way" BEFORE it is posted and overwritten with its outcome when the service answers: if
 * that write fails even after its retries (a partition), the entry stays "under way", and a retry
 * treats the message as of unknown outcome (not resent without the option) instead of sending it
 * again. Redis keys are digests; values hold the output item the user saw (no API key or secret).
 */
export type LedgerEntry =
	| { outcome: 'accepted'; json: IDataObject }
	| { outcome: 'unknown'; message: string; description?: string };

/** Where an earlier entry was written: the execution and the time (entries of older versions have none). */
export interface SentIn {
	executionId: string;
	at?: string;
}

export type EarlierEntry = LedgerEntry & { sentIn: SentIn };

/** An entry with the run that wrote it (`execution id \0 run index`) and when (epoch ms). */
interface Stored {
	run: string;
	entry: LedgerEntry;
	at?: number;
}

/** What a message is in the ledger between its POST and its recorded answer. */
const UNDER_WAY: LedgerEntry = {
	outcome: 'unknown',
	message: 'it was being sent, and its answer could not be recorded',
	description: 'Redis could not be reached when the service answered, so the outcome is unknown.',
};

/**
 * In this process an accepted entry is held as its output's own object (no wrapper per message);
 * any other entry inside one of these, which tells the two apart.
 */
class HeldOther {
	constructor(readonly entry: LedgerEntry) {}
}

/**
 * Held in this process for a message found surely not posted (refused before it was sent, e.g. its
 * request failed unsent when the shared Redis was lost) whose "under way" entry Redis may still hold
 * because Redis could not take its removal: a retry in this process then sends it (nobody got it),
 * unless Redis holds a later write, from another worker.
 */
const NOT_POSTED = new HeldOther({ outcome: 'unknown', message: 'not posted' });

const heldForm = (entry: LedgerEntry): object => (entry.outcome === 'accepted' ? entry.json : new HeldOther(entry));
const entryOf = (held: object): LedgerEntry => (held instanceof HeldOther ? held.entry : { outcome: 'accepted', json: held as IDataObject });

const finishedRuns = new RunSet();
const runsThatSent = new RunSet();

export interface SendLedger {
	/** Whether this run may repeat an earlier one (only then is anything looked up). */
	readonly consult: boolean;
	/** The run's units in the round's order, before any stage decides one (the durable record's blocks). */
	plan?(units: ReadonlyArray<{ identity: string }>): void;
	/** Entries this run must not send again, in the order of `identities`. Throws RedisUnavailable. */
	lookup(identities: string[]): Promise<Array<EarlierEntry | undefined>>;
	/** Whether this process holds any entry of each message (one that applies or not). */
	held(identities: string[]): boolean[];
	/** Marks messages as under way (in Redis) before they are posted. Throws RedisUnavailable if it cannot: then none is posted. */
	begin(identities: string[]): Promise<void>;
	/** Records outcomes at once (Redis write awaited: a crash after keeps them); `undefined`: surely not sent. Never throws. */
	record(entries: Array<[identity: string, entry: LedgerEntry | undefined]>): Promise<void>;
	/** The run ended without an error: an execution retry never re-runs it, so ignores its entries. */
	finish(): Promise<void>;
	/** Resolves once what `record` left to a later group write is in n8n's database (ledgerDurable.ts). Never throws. */
	stored?(): Promise<void>;
	/** Whether a post's "under way" mark is made in its limiter slot (default), or before its turn: a slot must not wait for a gather (ledgerDurable.ts). */
	marksInSlot?(identities: readonly string[]): boolean;
	/** After a Retry's look-up: when the run it repeats began, if older than the ledger keeps (ledger/olderRun.ts). */
	olderRunAt?(): number | undefined;
}

/**
 * Numbers repeated payloads (`#0`, `#1`, …) so that the same message twice in one run is two
 * messages in the ledger, as it was two at the service.
 */
export function messageIdentities(payloads: string[]): string[] {
	const seen = new Map<string, number>();
	return payloads.map((payload) => {
		const n = seen.get(payload) ?? 0;
		seen.set(payload, n + 1);
		return `${payload}\u0000#${n}`;
	});
}

function sentIn(stored: Stored): SentIn {
	const executionId = stored.run.slice(0, stored.run.lastIndexOf('\u0000'));
	return stored.at === undefined ? { executionId } : { executionId, at: new Date(stored.at).toISOString() };
}

/**
 * Who is sending, as the ledger keys it (read once from n8n's context: sending/sendRun.ts). The
 * execution id is never empty: a call without one (an MCP Server Trigger's tool call, run before
 * n8n creates its execution) is a run of its own.
 */
export interface RunIdentity {
	workflowId: string;
	nodeId: string;
	executionId: string;
	runIndex: number;
	/** an execution Retry (n8n's mode `retry`) */
	isRetry: boolean;
}

/**
 * Opens the node's ledger for this run; kept in Redis too when the API-key credential shares its
 * limit (`shared`). Throws RedisUnavailable when that Redis cannot be reached.
 */
export async function openSendLedger(identity: RunIdentity, shared?: SharedLimitConfig): Promise<SendLedger> {
	const { workflowId, nodeId, executionId, runIndex, isRetry } = identity;
	const run = `${executionId}\u0000${runIndex}`;
	const runKey = `${workflowId}\u0000${nodeId}\u0000${run}`;
	const consult = isRetry || runsThatSent.has(runKey);
	runsThatSent.add(runKey);

	const scopeKey = `${workflowId}\u0000${nodeId}`;
	const redis = shared ? await sharedLedger<Stored>(shared, scopeKey) : undefined;
	// The digests are those of earlier versions: a retry after an upgrade finds what was sent before it.
	const keyOf = (identity: string) => digest(`${workflowId}\u0000${nodeId}\u0000${identity}`);
	let unrecorded = false;

	// Same run: Retry On Fail. Another, unfinished run: what an execution retry repeats.
	const applies = async (stored: Stored | undefined, finished: Map<string, Promise<number | undefined>>): Promise<EarlierEntry | undefined> => {
		if (!stored) return undefined;
		const earlier = { ...stored.entry, sentIn: sentIn(stored) };
		if (stored.run === run) return earlier;
		if (!isRetry) return undefined;
		let done = finished.get(stored.run);
		if (!done) {
			const otherRunKey = `${workflowId}\u0000${nodeId}\u0000${stored.run}`;
			const here = finishedRuns.at(otherRunKey);
			done = here !== undefined ? Promise.resolve(here) : (redis?.finishedAt(digest(otherRunKey)) ?? Promise.resolve(undefined));
			finished.set(stored.run, done);
		}
		const finishedAt = await done;
		if (finishedAt === undefined) return earlier;
		// A finished run is re-run by a retry only when the execution failed after the node succeeded
		// (progress not saved): a run that finished recently holds; an old run's (yesterday's reminder)
		// does not. Counted from when the run finished, not when the entry was written: a Send and Wait
		// may finish hours after it posted. A finish time not kept (older versions): the entry's time.
		const since = finishedAt || stored.at;
		return since !== undefined && Date.now() - since <= SEND_LEDGER.finishedRunRetryWindowMs ? earlier : undefined;
	};

	return {
		consult,
		async lookup(identities) {
			const held = heldEntries(scopeKey, identities);
			const found = held.map((h): Stored | undefined => (h && h.entry !== NOT_POSTED ? { run: h.run, at: h.at, entry: entryOf(h.entry) } : undefined));
			if (redis) {
				const missing = found.flatMap((stored, i) => (stored ? [] : [i]));
				const fromRedis = await redis.get(missing.map((i) => keyOf(identities[i])));
				missing.forEach((i, n) => {
					const stored = fromRedis[n];
					const notPosted = held[i];
					// Known here as not posted: only a later write (another worker's) counts.
					found[i] = stored && (!notPosted || (stored.at ?? 0) > notPosted.at) ? stored : undefined;
				});
			}
			const finished = new Map<string, Promise<number | undefined>>();
			return await Promise.all(found.map(async (stored) => await applies(stored, finished)));
		},
		held: (identities) => heldEntries(scopeKey, identities).map(Boolean),
		async begin(identities) {
			if (!redis || identities.length === 0) return;
			const underWay: Stored = { run, entry: UNDER_WAY, at: Date.now() };
			await redis.set(identities.map((identity) => [keyOf(identity), underWay]));
		},
		async record(entries) {
			const at = Date.now();
			const written: Array<[string, Stored]> = [];
			const notSent: string[] = [];
			for (const [identity, entry] of entries) {
				if (!entry) {
					if (redis) {
						notSent.push(keyOf(identity));
						holdEntry(scopeKey, identity, runKey, run, NOT_POSTED, at);
					}
					continue;
				}
				// In this process the entry is the output's own object (no copy: a send of 100,000 messages
				// then costs no second copy of every text); Redis gets the JSON.
				holdEntry(scopeKey, identity, runKey, run, heldForm(entry), at);
				if (redis) written.push([keyOf(identity), { run, entry, at }]);
			}
			if (!redis) return;
			// The messages were sent: a Redis failure here must not turn them into errors. Their entries
			// stay "under way" in Redis (a retry elsewhere refuses them as unknown), and this run is
			// never marked finished, so that a retry consults them.
			await Promise.all([
				written.length ? redis.set(written) : undefined,
				notSent.length ? redis.remove(notSent) : undefined,
			]).catch(() => (unrecorded = true));
		},
		async finish() {
			// A retry's own run stays open: clicking Retry on the same failed execution again must
			// find what the first retry sent. A run whose outcomes Redis did not take stays open too.
			if (isRetry || unrecorded) return;
			const at = Date.now();
			finishedRuns.add(runKey, at);
			runFinished(runKey);
			await redis?.markFinished(digest(runKey), at).catch(() => undefined);
		},
	};
}

/** Forgets this process's entries, as a restart does (Redis entries stay). */
export function clearLocalLedger(): void {
	clearHeldEntries();
	finishedRuns.clear();
	runsThatSent.clear();
}
