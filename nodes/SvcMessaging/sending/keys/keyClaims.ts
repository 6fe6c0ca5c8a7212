import type { IDataObject } from 'n8n-workflow';

import { IDEMPOTENCY_KEYS_FULL } from '../../transport/errors';
import { digest } from '../../transport/redis';
import { inProcess } from '../../stores/inProcess';
import type { ProcessBounds, Store } from '../../stores/store';

/**
 * Options → Idempotency Key: one message per business event. A key is claimed atomically before
 * its first message is posted and holds, for the hours asked, first "in progress", then the first
 * result (or "unknown": the post may have reached the service). Claims are keyed by a digest of
 * the account (keys/runKeys.ts keyAccountOf) and the user's key (claimsIn, over this process's store
 * or the shared Redis), never the key or the API key itself.
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
	/** digest of the account: the keys' hash tag (a Redis Cluster keeps one account's keys in one slot) */
	account: string;
	ttlMs: number;
	/** the scope of versions before the account's (the API key) and the user's key: a Redis may still hold the key so */
	formerAccount?: string;
	key?: string;
}

/** Where claims live: the credential's shared Redis, else this process and n8n's database. */
export interface KeyStore {
	/** Claims each key not held (atomically); answers the holder's claim for the others. */
	claim(asks: KeyAsk[], mine: KeyClaim): Promise<Array<KeyClaim | undefined>>;
	peek(asks: KeyAsk[]): Promise<Array<KeyClaim | undefined>>;
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
	/**
	 * keys this process holds without the shared Redis: a key is forgotten only once its hours are
	 * over; a new key beyond them is refused, nothing sent (LOCAL_KEYS, IDEMPOTENCY_KEYS_FULL)
	 */
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

/** This process holds LOCAL_KEYS.maxKeys keys, none of them over: a new key is not claimed, its item not sent. */
export class KeysFull extends Error {
	readonly code = IDEMPOTENCY_KEYS_FULL;
	readonly description: string;

	constructor(keys: number) {
		super(`This n8n process already holds ${keys} Idempotency Keys within their Remember Key For hours, so it cannot hold another`);
		this.description =
			'Nothing was sent for this item: a key it could not hold might send its message twice. Keys are forgotten as their hours end; turn on the credential\'s "Use Redis" to keep keys there instead (no such bound), or shorten Remember Key For (Hours).';
	}
}

/**
 * The bound of the claims in this process (KEY_CLAIMS.maxLocalKeys; tests lower it): a key still
 * held is never dropped for a new one, whatever else the process remembered.
 */
export const LOCAL_KEYS: ProcessBounds = { maxKeys: KEY_CLAIMS.maxLocalKeys, keepUnexpired: true, full: (keys) => new KeysFull(keys) };

/** Claims in this process, when the credential has no shared Redis: every workflow of this n8n process sees them. */
const localClaims = inProcess<KeyClaim>(LOCAL_KEYS);

/**
 * The claims in a store (this process's, or the credential's shared Redis): `setIfAbsent` claims a
 * key for every workflow (and in Redis every n8n process) on the account at once, so two executions
 * at the same instant never both send. Keys are `idem:{<account>}:<digest>`: the account's digest is
 * a hash tag, so a Redis Cluster keeps one account's keys in one slot. `former`: a key held under
 * the scope of earlier versions (`idem:<digest>`, the API key's) counts as held (the shared Redis
 * kept it across the upgrade; this process's store did not).
 */
export function claimsIn(store: Store<KeyClaim>, former = false): KeyStore {
	const keyOf = (ask: KeyAsk) => `idem:{${ask.account}}:${ask.digest}`;
	const formerOf = (ask: KeyAsk) => (former && ask.formerAccount !== undefined && ask.key !== undefined ? `idem:${digest(`${ask.formerAccount}\u0000${ask.key}`)}` : undefined);
	const read = async (names: string[]) => (names.length === 0 ? [] : await store.get(names));
	/** For each ask: the claim held under its former name, when it has one. */
	const heldBefore = async (asks: KeyAsk[]) => {
		const named = asks.map(formerOf);
		const found = await read(named.filter((name): name is string => name !== undefined));
		let n = 0;
		return named.map((name) => (name === undefined ? undefined : current(found[n++])));
	};
	return {
		async peek(asks) {
			const held = await read(asks.map(keyOf));
			if (!former || held.every(Boolean)) return held;
			const before = await heldBefore(asks);
			return held.map((claim, n) => claim ?? before[n]);
		},
		async claim(asks, mine) {
			const answers: Array<KeyClaim | undefined> = new Array(asks.length);
			let open = asks.map((_, n) => n);
			const mineNow: number[] = [];
			// A key that expires between the claim and the read is claimed again (bounded).
			for (let round = 0; round < 3 && open.length > 0; round++) {
				const set = await store.setIfAbsent(open.map((n) => [keyOf(asks[n]), mine, asks[n].ttlMs] as const));
				const taken = open.filter((n, i) => !set[i]);
				mineNow.push(...open.filter((n, i) => set[i]));
				const held = await read(taken.map((n) => keyOf(asks[n])));
				open = [];
				taken.forEach((n, i) => {
					// Our own claim read back: a claim tried again after a lost answer had gone through.
					if (held[i] && held[i]!.token === mine.token) return;
					if (held[i]) answers[n] = held[i];
					else open.push(n);
				});
			}
			for (const n of open) answers[n] = { ...mine, state: 'unknown', message: 'its claim could not be read back' };
			if (former && mineNow.length) {
				// Held under the former name: ours takes its state (a later send reads it under the account's name).
				const before = await heldBefore(mineNow.map((n) => asks[n]));
				for (const [i, claim] of before.entries()) {
					if (!claim) continue;
					const n = mineNow[i];
					await store.replaceIfToken(keyOf(asks[n]), mine.token, claim);
					answers[n] = claim;
				}
			}
			return answers;
		},
		settle: async (ask, token, next) => await store.replaceIfToken(keyOf(ask), token, next),
	};
}

/** The claims of this process (no shared Redis). */
export const localKeyStore: KeyStore = claimsIn(localClaims);

/** Forgets this process's claims, as a restart does (n8n's database and Redis keep theirs). */
export function clearLocalKeys(): void {
	localClaims.clear();
}
