import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { randomUUID } from 'crypto';

import { digest, redisClient, sharedLimitOf, type SharedLimitConfig } from '../transport/redis';

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
 * runs that did not finish (a run that finished is never re-run by a retry), so yesterday's
 * identical, successful message does not hold back today's; runs of retries never count as
 * finished, so a second Retry of the same failed execution finds what the first one sent.
 *
 * Entries live in this process (bounded, oldest first; a restart forgets them) and, when the
 * credential shares its rate limit through Redis, in Redis for LEDGER_TTL_MS, so that a retry on
 * another worker or after a restart is covered. Redis keys are digests; values hold the output
 * item the user saw (no API key or secret).
 */
export const LEDGER_TTL_MS = 72 * 3600 * 1000;
const MAX_ENTRIES = 200_000;
const MAX_RUNS = 20_000;
const REDIS_BATCH = 1_000;

export type LedgerEntry =
	| { outcome: 'accepted'; json: IDataObject }
	| { outcome: 'unknown'; message: string; description?: string };

/** An entry with the run that wrote it. */
interface Stored {
	run: string;
	entry: LedgerEntry;
}

const memory = new Map<string, Stored>();
const finishedRuns = new Set<string>();
const runsThatSent = new Set<string>();

function remember<T>(collection: Map<string, T> | Set<string>, key: string, value: T | undefined, max: number): void {
	if (collection instanceof Map) collection.set(key, value as T);
	else collection.add(key);
	if (collection.size > max) {
		const oldest = collection.keys().next().value;
		if (oldest !== undefined) collection.delete(oldest);
	}
}

export interface SendLedger {
	/** Whether this run may repeat an earlier one (only then is anything looked up). */
	readonly consult: boolean;
	/** Entries this run must not send again, in the order of `identities`. */
	lookup(identities: string[]): Promise<Array<LedgerEntry | undefined>>;
	/** Records outcomes at once (Redis write awaited, so a crash right after keeps them). */
	record(entries: Array<[identity: string, entry: LedgerEntry]>): Promise<void>;
	/** The run ended without an error: an execution retry never re-runs it, so ignores its entries. */
	finish(): Promise<void>;
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

/**
 * Opens the node's ledger for this run; `apiCredentials` (the API-key credential) says whether it
 * is kept in Redis too. Throws RedisUnavailable when that Redis cannot be reached.
 */
export async function openSendLedger(ctx: IExecuteFunctions, apiCredentials?: IDataObject): Promise<SendLedger> {
	const workflowId = String(ctx.getWorkflow().id ?? '');
	const nodeId = ctx.getNode().id;
	// No execution id: an MCP Server Trigger's tool call, run before n8n creates its execution. Each
	// such call is a run of its own (one fixed id made every later identical message "already sent").
	const executionId = ctx.getExecutionId() || `no-execution-${randomUUID()}`;
	const runIndex = ctx.getWorkflowDataProxy(0).$runIndex ?? 0;
	const run = `${executionId}\u0000${runIndex}`;
	const runKey = `${workflowId}\u0000${nodeId}\u0000${run}`;
	const isRetry = ctx.getMode() === 'retry';
	const consult = isRetry || runsThatSent.has(runKey);
	remember(runsThatSent, runKey, undefined, MAX_RUNS);

	const shared = apiCredentials ? sharedLimitOf(apiCredentials) : undefined;
	const redis = shared ? await redisStore(shared) : undefined;
	const scoped = (identity: string) => `${workflowId}\u0000${nodeId}\u0000${identity}`;
	const finishedKey = (someRun: string) => `${workflowId}\u0000${nodeId}\u0000${someRun}`;

	// Same run: Retry On Fail. Another, unfinished run: what an execution retry repeats.
	const applies = async (stored: Stored | undefined, finished: Map<string, Promise<boolean>>) => {
		if (!stored) return undefined;
		if (stored.run === run) return stored.entry;
		if (!isRetry) return undefined;
		let done = finished.get(stored.run);
		if (!done) {
			const key = finishedKey(stored.run);
			done = finishedRuns.has(key) ? Promise.resolve(true) : (redis?.isFinished(key) ?? Promise.resolve(false));
			finished.set(stored.run, done);
		}
		return (await done) ? undefined : stored.entry;
	};

	return {
		consult,
		async lookup(identities) {
			const keys = identities.map(scoped);
			const found = keys.map((key) => memory.get(key));
			if (redis) {
				const missing = found.flatMap((stored, i) => (stored ? [] : [i]));
				const fromRedis = await redis.get(missing.map((i) => keys[i]));
				missing.forEach((i, n) => (found[i] = fromRedis[n]));
			}
			const finished = new Map<string, Promise<boolean>>();
			return await Promise.all(found.map(async (stored) => await applies(stored, finished)));
		},
		async record(entries) {
			const stored = entries.map(([identity, entry]): [string, Stored] => [scoped(identity), { run, entry }]);
			for (const [key, value] of stored) remember(memory, key, value, MAX_ENTRIES);
			// The messages were sent: a Redis failure here must not turn them into errors (memory keeps them).
			await redis?.set(stored).catch(() => undefined);
		},
		async finish() {
			// A retry's own run stays open: clicking Retry on the same failed execution again must
			// find what the first retry sent.
			if (isRetry) return;
			remember(finishedRuns, runKey, undefined, MAX_RUNS);
			await redis?.markFinished(runKey).catch(() => undefined);
		},
	};
}

async function redisStore(config: SharedLimitConfig) {
	const client = await redisClient(config, 'the send ledger');
	const entryKey = (key: string) => `${config.keyPrefix}:sent:${digest(key)}`;
	const finishedKey = (key: string) => `${config.keyPrefix}:finished:${digest(key)}`;
	return {
		async get(keys: string[]): Promise<Array<Stored | undefined>> {
			const out: Array<Stored | undefined> = [];
			for (let start = 0; start < keys.length; start += REDIS_BATCH) {
				const values = await client.mget(keys.slice(start, start + REDIS_BATCH).map(entryKey));
				for (const value of values) out.push(value ? (JSON.parse(value) as Stored) : undefined);
			}
			return out;
		},
		async set(entries: Array<[string, Stored]>): Promise<void> {
			for (let start = 0; start < entries.length; start += REDIS_BATCH) {
				const pipeline = client.pipeline();
				for (const [key, value] of entries.slice(start, start + REDIS_BATCH)) {
					pipeline.set(entryKey(key), JSON.stringify(value), 'PX', LEDGER_TTL_MS);
				}
				await pipeline.exec();
			}
		},
		async isFinished(key: string): Promise<boolean> {
			return (await client.exists(finishedKey(key))) === 1;
		},
		async markFinished(key: string): Promise<void> {
			await client.set(finishedKey(key), '1', 'PX', LEDGER_TTL_MS);
		},
	};
}

/** Forgets this process's entries, as a restart does (Redis entries stay). */
export function clearLocalLedger(): void {
	memory.clear();
	finishedRuns.clear();
	runsThatSent.clear();
}
