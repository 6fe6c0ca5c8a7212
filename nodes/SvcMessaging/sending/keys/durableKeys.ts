import { addNodeMarks, DatabaseUnavailable, nodeRowWritten, onNodeRow, type ProcessedData } from '../ledger/durableMarks';
import { SEND_LEDGER } from '../ledger/ledgerBounds';
import { KEY_CLAIMS, type KeyAsk, type KeyClaim, type KeyStore } from './keyClaims';

/** n8n's database did not take (or answer) a key's claim: its item is not sent (LEDGER_UNAVAILABLE, sending/recovery.ts). */
export class KeysDatabaseUnavailable extends DatabaseUnavailable {
	override readonly description: string;

	constructor(reason: unknown) {
		super(reason);
		this.message = 'n8n’s database did not take the Idempotency Key’s claim of this message, so it was not sent';
		const said = reason instanceof Error ? reason.message : String(reason);
		this.description = `Without Redis, n8n’s own database keeps which Idempotency Keys were used, so that no key sends twice. The database said: ${said}. Nothing was sent for this item; run the node again once n8n’s database answers.`;
	}
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
				// Not claimed in n8n's database: not claimed at all (the items fail unsent, saying it was n8n's database).
				for (const ask of fresh) await inner.settle(ask, mine.token, undefined);
				throw new KeysDatabaseUnavailable(error);
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
		peek: async (asks) => await inner.peek(asks),
		stored: async () => await nodeRowWritten(scopeKey).catch(() => undefined),
		async settle(ask, token, next) {
			const mine = await inner.peek([ask]);
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
