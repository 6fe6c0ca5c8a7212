import type { IDataObject } from 'n8n-workflow';

import { addNodeMarks, nodeRowWritten, onNodeRow, type ProcessedData } from '../ledger/durableMarks';
import { SEND_LEDGER } from '../ledger/ledgerBounds';
import { inProcess } from '../../stores/inProcess';
import type { Store } from '../../stores/store';

/**
 * Options → Idempotency Key: one message per business event. A key is claimed atomically before
 * its first message is posted and holds, for the hours asked, first "in progress", then the first
 * result (or "unknown": the post may have reached the service). Claims are keyed by a digest of
 * the account and the user's key (claimsIn, over this process's store or the shared Redis), never
 * the key or the API key itself.
 */
export interface KeyClaim {
	state: 'pending' | 'sent' | 'unknown';
	/** who holds the claim: only its holder settles or releases it */
	token: string;
	executionId: string;
	workflowId: string;
	/** when it was claimed (epoch ms) */
	at: number;
	/** sent: when the service accepted the first message */
	sentAt?: string;
	/** sent: the first send's output items (the first KEY_CLAIMS.maxResults of them) */
	results?: IDataObject[];
	/** unknown: why */
	message?: string;
	/** the claim comes from n8n's database (before a restart): no execution, time or output kept */
	durable?: boolean;
	/** read as unknown because it stayed in progress too long: its holder may still be sending a long run */
	stale?: boolean;
}

export interface KeyAsk {
	/** digest of the account and the user's key */
	digest: string;
	ttlMs: number;
}

/** Where claims live: the credential's shared Redis, else this process and n8n's database. */
export interface KeyStore {
	/** Claims each key not held (atomically); answers the holder's claim for the others. */
	claim(asks: KeyAsk[], mine: KeyClaim): Promise<Array<KeyClaim | undefined>>;
	peek(digests: string[]): Promise<Array<KeyClaim | undefined>>;
	/** Replaces the claim held under `token` (undefined: released); a claim held by another is left. */
	settle(ask: KeyAsk, token: string, next: KeyClaim | undefined): Promise<boolean>;
	/** Resolves once what `settle` left to a later group write is in n8n's database. Never throws. */
	stored?(): Promise<void>;
}

/** Not in the spec: the package's own tuning of the key claims. */
export const KEY_CLAIMS = {
	/** a second send waits this long for a claim in progress elsewhere, asking again every pollMs */
	waitMs: 15_000,
	pollMs: 250,
	/** a claim still "in progress" after this long was left by a process that stopped: its outcome is unknown */
	staleMs: 10 * 60_000,
	/** output items kept per key (Send Bulk's list under one key) */
	maxResults: 100,
	/** keys this process holds without the shared Redis (oldest dropped first; n8n's database keeps its marks) */
	maxLocalKeys: 100_000,
	/**
	 * n8n's database: a claim is marked in every bucket of this length it covers, "sent" once, in the
	 * bucket it was claimed in, and its end once, to the minute (expiryMs)
	 */
	durableBucketMs: 3 * 3600_000,
	/** n8n's database: a claim's end is marked to this precision (it holds up to this much longer than asked) */
	expiryMs: 60_000,
	/**
	 * n8n's database: keys of one run marked there (up to 26 marks each, 10 at 24 hours); the rest are claimed in
	 * this process only, so that a large keyed Send Bulk does not push the send ledger's own marks out
	 * of the node's row (its last 200,000)
	 */
	durableMaxKeys: 2_000,
} as const;

/** What "in progress" means when read: a claim left in progress too long is of unknown outcome. */
export function current(claim: KeyClaim | undefined, now = Date.now()): KeyClaim | undefined {
	if (claim?.state === 'pending' && now - claim.at > KEY_CLAIMS.staleMs) {
		return { ...claim, state: 'unknown', stale: true, message: 'it has been in progress for more than 10 minutes: its execution stopped, or is still sending a long run' };
	}
	return claim;
}

/** Claims in this process, when the credential has no shared Redis: every workflow of this n8n process sees them. */
const localClaims = inProcess<KeyClaim>({ maxKeys: KEY_CLAIMS.maxLocalKeys });

/**
 * The claims in a store (this process's, or the credential's shared Redis): `setIfAbsent` claims a
 * key for every workflow (and in Redis every n8n process) on the account at once, so two executions
 * at the same instant never both send. Keys are `idem:<digest>`, a digest of the account and the
 * user's key.
 */
export function claimsIn(store: Store<KeyClaim>): KeyStore {
	const keyOf = (digest: string) => `idem:${digest}`;
	const peek = async (digests: string[]) => (digests.length === 0 ? [] : await store.get(digests.map(keyOf)));
	return {
		peek,
		async claim(asks, mine) {
			const answers: Array<KeyClaim | undefined> = new Array(asks.length);
			let open = asks.map((_, n) => n);
			// A key that expires between the claim and the read is claimed again (bounded).
			for (let round = 0; round < 3 && open.length > 0; round++) {
				const set = await store.setIfAbsent(open.map((n) => [keyOf(asks[n].digest), mine, asks[n].ttlMs] as const));
				const taken = open.filter((n, i) => !set[i]);
				const held = await peek(taken.map((n) => asks[n].digest));
				open = [];
				taken.forEach((n, i) => {
					// Our own claim read back: a claim tried again after a lost answer had gone through.
					if (held[i] && held[i]!.token === mine.token) return;
					if (held[i]) answers[n] = held[i];
					else open.push(n);
				});
			}
			for (const n of open) answers[n] = { ...mine, state: 'unknown', message: 'its claim could not be read back' };
			return answers;
		},
		settle: async (ask, token, next) => await store.replaceIfToken(keyOf(ask.digest), token, next),
	};
}

/** The claims of this process (no shared Redis). */
export const localKeyStore: KeyStore = claimsIn(localClaims);

/** Forgets this process's claims, as a restart does (n8n's database and Redis keep theirs). */
export function clearLocalKeys(): void {
	localClaims.clear();
}

/** The ledger's own row and bound: every call trims the row to it. */
type RowOptions = { mode: 'entries'; maxEntries: number };
const bucket = (at: number) => Math.floor(at / KEY_CLAIMS.durableBucketMs);
/** The buckets a claim made at `at` covers, to its last held instant: it is found in any of them. */
const covered = (at: number, ttlMs: number) => Array.from({ length: bucket(at + ttlMs - 1) - bucket(at) + 1 }, (_, n) => bucket(at) + n);
const claimMark = (digest: string, b: number) => `k:${digest}:${b}`;
const sentMark = (digest: string, b: number) => `s:${digest}:${b}`;
/** A claim's end, to the minute (rounded up: never shorter than asked); it lies in the claim's last bucket. */
const endSlot = (at: number, ttlMs: number) => Math.ceil((at + ttlMs) / KEY_CLAIMS.expiryMs);
const endMark = (digest: string, slot: number) => `x:${digest}:${slot}`;
const perBucket = KEY_CLAIMS.durableBucketMs / KEY_CLAIMS.expiryMs;
/** The end marks a claim found in bucket `b` may have: ends after the bucket's start, up to its end. */
const endMarksIn = (digest: string, b: number) => Array.from({ length: perBucket }, (_, n) => endMark(digest, b * perBucket + 1 + n));
/** A key's look-up asks its next bucket's claim mark and its end marks; one call asks at most one removal's worth. */
const keysPerLookup = Math.max(1, Math.floor(SEND_LEDGER.durable.removeAtMost / (1 + perBucket)));
/** Whether the marks found say the claim holds at `now` (see stillHeld). */
function holds([next, ...ends]: string[], seen: Set<string>, now: number): boolean {
	if (seen.has(next)) return true;
	const marked = ends.filter((mark) => seen.has(mark));
	return marked.length === 0 || marked.some((mark) => Number(mark.slice(mark.lastIndexOf(':') + 1)) * KEY_CLAIMS.expiryMs > now);
}
/**
 * The keys, among those with a claim mark in the current bucket, whose claim still holds at `now`. One
 * holds when it covers the next bucket too, or when its end (marked to the minute) is after `now`. A
 * bucket with no end mark at all was marked before claims had them (an upgrade): held to the bucket's
 * end, as then. Asked for many keys in few calls (keysPerLookup a call), never one call a key.
 */
async function stillHeld(h: ProcessedData, digests: string[], now: number, options: RowOptions): Promise<Set<string>> {
	const b = bucket(now);
	const held = new Set<string>();
	for (let first = 0; first < digests.length; first += keysPerLookup) {
		const keys = digests.slice(first, first + keysPerLookup);
		const asked = keys.map((digest) => [claimMark(digest, b + 1), ...endMarksIn(digest, b)]);
		const found = await h.checkProcessedAndRecord(asked.flat(), 'node', options);
		// Asking recorded the marks not found: they must go again.
		if (found.new.length) await h.removeProcessed(found.new, 'node', options);
		const seen = new Set(found.processed.map(String));
		keys.forEach((digest, n) => holds(asked[n], seen, now) && held.add(digest));
	}
	return held;
}

/**
 * The claims of one workflow's node also in n8n's database (the processed-data row the send
 * ledger's marks use, durableMarks.ts), so that they outlive a restart of n8n. n8n keeps hashes
 * only: after a restart a key is known as claimed, and as sent or not, without its first output.
 */
export function durableKeyStore(inner: KeyStore, scopeKey: string, helpers: ProcessedData): KeyStore {
	const row = <T>(call: (h: ProcessedData) => Promise<T>) => onNodeRow(scopeKey, helpers, call);
	const options: RowOptions = { mode: 'entries', maxEntries: SEND_LEDGER.durable.maxMarks };
	/** the keys this run marked in the row: only theirs are settled there */
	const marked = new Set<string>();
	return {
		async claim(asks, mine) {
			const answers = await inner.claim(asks, mine);
			const fresh = asks.filter((_, n) => !answers[n]).slice(0, KEY_CLAIMS.durableMaxKeys);
			if (fresh.length === 0) return answers;
			for (const ask of fresh) marked.add(ask.digest);
			const now = bucket(mine.at);
			const before = await row(async (h) => {
				const seen = new Set((await h.checkProcessedAndRecord(fresh.map((a) => claimMark(a.digest, now)), 'node', options)).processed.map(String));
				const repeats = fresh.filter((a) => seen.has(claimMark(a.digest, now)));
				const held = repeats.length ? await stillHeld(h, repeats.map((a) => a.digest), mine.at, options) : new Set<string>();
				const claimed = repeats.filter((a) => held.has(a.digest));
				// Ours: its later buckets and its end.
				const rest = fresh.filter((a) => !claimed.includes(a)).flatMap((a) => [...covered(mine.at, a.ttlMs).slice(1).map((b) => claimMark(a.digest, b)), endMark(a.digest, endSlot(mine.at, a.ttlMs))]);
				if (rest.length) await h.checkProcessedAndRecord(rest, 'node', options);
				if (claimed.length === 0) return new Map<string, boolean>();
				// A key's "sent" mark is in the bucket it was claimed in, no longer ago than its hours.
				const sentMarksOf = (a: KeyAsk) => covered(mine.at - a.ttlMs, a.ttlMs).map((b) => sentMark(a.digest, b));
				const found = await h.checkProcessedAndRecord(claimed.flatMap(sentMarksOf), 'node', options);
				// Asking recorded the sent marks not found: they must go again.
				if (found.new.length) await h.removeProcessed(found.new, 'node', options);
				const sent = new Set(found.processed.map(String));
				return new Map(claimed.map((a) => [a.digest, sentMarksOf(a).some((m) => sent.has(m))]));
			}).catch(async (error: unknown) => {
				// Not claimed in n8n's database: not claimed at all (the items fail unsent).
				for (const ask of fresh) await inner.settle(ask, mine.token, undefined);
				throw error;
			});
			for (const ask of fresh) {
				const sent = before.get(ask.digest);
				if (sent === undefined) continue;
				const found: KeyClaim = { ...mine, token: `durable-${mine.token}`, state: sent ? 'sent' : 'unknown', durable: true, message: 'it was being sent when n8n stopped' };
				await inner.settle(ask, mine.token, found);
				answers[asks.indexOf(ask)] = found;
			}
			return answers;
		},
		peek: async (digests) => await inner.peek(digests),
		stored: async () => await nodeRowWritten(scopeKey).catch(() => undefined),
		async settle(ask, token, next) {
			const mine = await inner.peek([ask.digest]);
			const settled = await inner.settle(ask, token, next);
			const at = mine[0]?.at ?? Date.now();
			if (!settled || !marked.has(ask.digest)) return settled;
			if (next?.state === 'sent') {
				// Not awaited here (a post would hold its window slot): the node's next group write takes them,
				// and the round waits for that write before it returns (stored). A crash before it leaves the
				// key claimed without "sent": of unknown outcome after the restart, never sent again.
				void addNodeMarks(scopeKey, helpers, [sentMark(ask.digest, bucket(at))]).catch(() => undefined);
			} else if (!next) {
				const marks = [...covered(at, ask.ttlMs).map((b) => claimMark(ask.digest, b)), endMark(ask.digest, endSlot(at, ask.ttlMs))];
				await row(async (h) => await h.removeProcessed(marks, 'node', options)).catch(() => undefined);
			}
			return true;
		},
	};
}
