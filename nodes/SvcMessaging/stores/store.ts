/**
 * What the send path keeps by key, in one of two places with one face: this process (inProcess.ts)
 * or the credential's shared Redis (inRedis.ts), whichever the run's credential chose
 * (sending/runStores.ts). The Idempotency Key's claims, the agents' cap and the send ledger's shared
 * entries are each written once over it. n8n's database, the third place, keeps marks, not values:
 * its row (nodeRow.ts) stands beside a store for what a restart of n8n must not forget.
 *
 * Values are the concern's own objects in this process and their JSON in Redis; keys are the
 * concern's names (digests, never a secret). A call of the Redis store fails with RedisUnavailable.
 */
export interface Store<V> {
	/** the values under `keys`, in their order (undefined: none, or expired) */
	get(keys: readonly string[]): Promise<Array<V | undefined>>;
	/** sets each key for `ttlMs` (undefined: no expiry) */
	set(entries: ReadonlyArray<readonly [key: string, value: V]>, ttlMs?: number): Promise<void>;
	/**
	 * Sets each key that holds nothing, for its `ttlMs`; answers for each whether it was set here. A
	 * key is claimed atomically: of two processes at the same instant, one sets it.
	 */
	setIfAbsent(entries: ReadonlyArray<readonly [key: string, value: V, ttlMs?: number]>): Promise<boolean[]>;
	/**
	 * Replaces the value held under `token` (its `token` field) with `next`, or removes it (undefined),
	 * keeping the rest of its time; false, and nothing changed, when another holds the key.
	 */
	replaceIfToken(key: string, token: string, next: V | undefined): Promise<boolean>;
	remove(keys: readonly string[]): Promise<void>;
	/**
	 * Adds `n` to the count under `key` unless it would pass `limit`, checked and added in one step, and
	 * keeps it `ttlMs` from now; answers the count before. Throws StoreFull when this process keeps no
	 * more counts (its bound).
	 */
	addUpTo(key: string, n: number, limit: number, ttlMs: number): Promise<{ added: boolean; before: number }>;
	/** takes `n` off the count (a give-back); never fails: a count left high errs on the safe side */
	subtract(key: string, n: number): void;
}

/** This process keeps as many keys as its bound allows, and the oldest is too young to drop. */
export class StoreFull extends Error {
	constructor(readonly keys: number) {
		super(`this n8n process already keeps ${keys} keys`);
	}
}

/** What a store in this process may hold, and what it does when full. */
export interface ProcessBounds {
	maxKeys: number;
	/**
	 * undefined: the oldest key is dropped for a new one. A number: the least recently written key is
	 * dropped only when it was last written this long ago; otherwise a new key is refused (StoreFull).
	 */
	keepAtLeastMs?: number;
	/**
	 * true: a key is dropped only once expired, never for a new one; when every place holds an
	 * unexpired key, a new key is refused (StoreFull). Read at each write (a test may lower maxKeys).
	 */
	keepUnexpired?: boolean;
	/** the error a full store throws (default StoreFull): a concern's own, with its words and code */
	full?: (keys: number) => Error;
}
