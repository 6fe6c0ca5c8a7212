import type { SharedLimitConfig } from '../../transport/redis';
import { SEND_LEDGER } from './ledgerBounds';
import { openRedisStore } from '../../transport/redisStore';

/**
 * The send ledger's part in the credential's shared Redis: entries under `<prefix>:sent:<digest>`,
 * finished runs under `<prefix>:finished:<digest>` (digests are made by ledger.ts; in a Redis
 * Cluster the prefix carries the node's hash tag, transport/redisConfig.ts scopedPrefix), for
 * SEND_LEDGER.redisTtlMs. Each call is tried again (transport/redisStore.ts: a short partition, a
 * failover) before it fails with RedisUnavailable naming the Redis.
 */
export interface RedisLedgerStore {
	get(digests: string[]): Promise<Array<string | undefined>>;
	set(entries: Array<[digest: string, json: string]>): Promise<void>;
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
export async function redisLedgerStore(config: SharedLimitConfig, scope: string): Promise<RedisLedgerStore> {
	const { client, key, tried } = await openRedisStore(config, 'the send ledger', scope);
	const entryKey = (digest: string) => key(`sent:${digest}`);
	const finishedKey = (digest: string) => key(`finished:${digest}`);
	/** A pipeline answers each command's error in its results instead of rejecting. */
	const exec = async (commands: (pipeline: ReturnType<typeof client.pipeline>) => void) => {
		const pipeline = client.pipeline();
		commands(pipeline);
		const results = await pipeline.exec();
		const failed = results?.find(([error]) => error);
		if (!results || failed) throw failed?.[0] ?? new Error('no answer');
	};
	const batches = <T>(list: T[]) => {
		const out: T[][] = [];
		for (let start = 0; start < list.length; start += SEND_LEDGER.redisBatch) out.push(list.slice(start, start + SEND_LEDGER.redisBatch));
		return out;
	};

	return {
		async get(digests) {
			const out: Array<string | undefined> = [];
			for (const batch of batches(digests)) {
				const values = await tried(async () => await client.mget(batch.map(entryKey)));
				for (const value of values) out.push(value ?? undefined);
			}
			return out;
		},
		async set(entries) {
			for (const batch of batches(entries)) {
				await tried(async () => await exec((p) => batch.forEach(([digest, json]) => p.set(entryKey(digest), json, 'PX', SEND_LEDGER.redisTtlMs))));
			}
		},
		async remove(digests) {
			for (const batch of batches(digests)) await tried(async () => await client.del(...batch.map(entryKey)));
		},
		async finishedAt(digest) {
			const value = await tried(async () => await client.get(finishedKey(digest)));
			if (value === null) return undefined;
			const at = Number(value);
			// Older versions wrote '1': finished, at a time not kept.
			return Number.isFinite(at) && at > 1 ? at : 0;
		},
		async epoch() {
			const epochKey = key('epoch');
			const value = await tried(async () => {
				await client.set(epochKey, String(Date.now()), 'NX');
				return await client.get(epochKey);
			});
			return Number(value) || Date.now();
		},
		async markFinished(digest, at) {
			await tried(async () => await client.set(finishedKey(digest), String(at), 'PX', SEND_LEDGER.redisTtlMs));
		},
	};
}
