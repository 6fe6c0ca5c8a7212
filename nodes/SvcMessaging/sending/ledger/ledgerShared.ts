import type { SharedLimitConfig } from '../../transport/redis';
import { inRedis } from '../../stores/inRedis';
import { SEND_LEDGER } from './ledgerBounds';

/**
 * The send ledger's part in the credential's shared Redis, over the one store (stores/inRedis.ts):
 * entries under `<prefix>:sent:<digest>`, finished runs under `<prefix>:finished:<digest>` (digests
 * are made by ledger.ts; in a Redis Cluster the prefix carries the node's hash tag), for
 * SEND_LEDGER.redisTtlMs (an entry is ledger.ts's Stored). Each call is tried again before it fails with RedisUnavailable naming the Redis.
 */
export interface SharedLedger<Stored> {
	get(digests: string[]): Promise<Array<Stored | undefined>>;
	set(entries: Array<[digest: string, stored: Stored]>): Promise<void>;
	remove(digests: string[]): Promise<void>;
	/**
	 * When the run finished (epoch ms), 0 when it finished at a time not kept (a mark of an older
	 * version), undefined when it did not finish.
	 */
	finishedAt(digest: string): Promise<number | undefined>;
	markFinished(digest: string, at: number): Promise<void>;
	/**
	 * When this Redis's data began (epoch ms): written once, the first time it is asked, and kept
	 * with no expiry. A Redis restarted without persistence lost it with everything else, so a
	 * recent time means the ledger's entries before it are gone. In a Redis Cluster each workflow
	 * node has its own, in its entries' slot: the master that holds them is the one whose restart
	 * loses them.
	 */
	epoch(): Promise<number>;
}

/** `scope`: the workflow node whose ledger this is (its keys share a hash slot in a Redis Cluster). */
export async function sharedLedger<Stored extends object>(config: SharedLimitConfig, scope: string): Promise<SharedLedger<Stored>> {
	// Entries are Stored; a finished mark and the epoch are times (their JSON is the number's text, as earlier versions wrote them).
	const store = await inRedis<Stored | number>(config, 'the send ledger', scope);
	const sent = (digest: string) => `sent:${digest}`;
	const finished = (digest: string) => `finished:${digest}`;
	return {
		get: async (digests) => (await store.get(digests.map(sent))) as Array<Stored | undefined>,
		set: async (entries) => await store.set(entries.map(([digest, stored]) => [sent(digest), stored] as const), SEND_LEDGER.redisTtlMs),
		remove: async (digests) => await store.remove(digests.map(sent)),
		async finishedAt(digest) {
			const [value] = await store.get([finished(digest)]);
			if (value === undefined) return undefined;
			const at = Number(value);
			// Older versions wrote 1: finished, at a time not kept.
			return Number.isFinite(at) && at > 1 ? at : 0;
		},
		markFinished: async (digest, at) => await store.set([[finished(digest), at]], SEND_LEDGER.redisTtlMs),
		async epoch() {
			await store.setIfAbsent([['epoch', Date.now()]]);
			const [value] = await store.get(['epoch']);
			return Number(value) || Date.now();
		},
	};
}
