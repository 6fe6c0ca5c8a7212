import type Bottleneck from 'bottleneck';
import type Redis from 'ioredis';
import { sleep } from 'n8n-workflow';

/**
 * A shared limit's slots are leases: a slot taken by this process expires LEASE_MS after its last
 * renewal. This process leases the slots it took within LEASE_EVERY_MS and renews all its running
 * slots every RENEW_EVERY_MS while it has any. A process that died (SIGKILL, out of memory) stops
 * renewing, so its slots return to the others within LEASE_MS (the next request of any process frees
 * them), instead of the job expiration (SLOT_EXPIRATION_MS, 40 s) that stays as the backstop: the
 * slots it took in its last LEASE_EVERY_MS were not leased yet and take that long. A living process
 * renews a slot until its hold is over, so a slot is never given back while its request may still
 * reach the service — unless its event loop stands still for longer than LEASE_MS − RENEW_EVERY_MS
 * (docs/assumptions.md). Leasing each slot as it starts (one more Redis call per request) cost 6
 * points of Business's rate across 4 processes on a loaded machine; a heartbeat of 1 s (Bottleneck's
 * heartbeatInterval, which wakes every process on the key) cost 13: neither is used.
 */
export const LEASE_MS = 6_000;
export const RENEW_EVERY_MS = 1_000;
export const LEASE_EVERY_MS = 100;

/**
 * Sets the expiry of this client's running jobs in Bottleneck's own job-expiration set (the one
 * its scripts free expired jobs from). `XX`: a job already freed is never put back. `fresh` renews
 * only the jobs still at their first (backstop) expiry: the one a slot just took.
 */
const RENEW = `
local indexes
if ARGV[3] == 'fresh' then
  indexes = redis.call('zrangebyscore', KEYS[1], '(' .. ARGV[4], '+inf')
else
  indexes = redis.call('zrange', KEYS[1], 0, -1)
end
local renewed = 0
for _, index in ipairs(indexes) do
  if redis.call('hget', KEYS[2], index) == ARGV[1] then
    redis.call('zadd', KEYS[1], 'XX', ARGV[2], index)
    renewed = renewed + 1
  end
end
return renewed`;

export interface SlotLease {
	/** A slot of this process started: lease it now, and keep renewing while slots run. */
	started(): void;
	/** A slot of this process is over (its job then frees it in Redis). */
	ended(): void;
}

/** `id`: the clustered Bottleneck's id; `client`: its Redis connection; `isOpen`: false once failed. */
export function slotLease(bottleneck: Bottleneck, id: string, client: Redis, isOpen: () => boolean): SlotLease {
	// Bottleneck's key names and client id (bottleneck 2.19.5, lib/Scripts.js and RedisDatastore.js):
	// the job expirations (index → expiry) and the job clients (index → client id).
	const keys = [`b_${id}_job_expirations`, `b_${id}_job_clients`];
	const clientId = (bottleneck as unknown as { _store: { clientId: string } })._store.clientId;
	let running = 0;
	let unleased = false;
	let renewing = false;
	// Scores are the registering client's Date.now(), as in Bottleneck's own scripts.
	const renew = async (mode: 'fresh' | 'all') => {
		const now = Date.now();
		await client.eval(RENEW, 2, ...keys, clientId, String(now + LEASE_MS), mode, String(now + LEASE_MS));
	};
	const keepRenewing = async () => {
		if (renewing) return;
		renewing = true;
		try {
			for (let tick = 1; running > 0 && isOpen(); tick++) {
				await sleep(LEASE_EVERY_MS);
				const all = tick % (RENEW_EVERY_MS / LEASE_EVERY_MS) === 0;
				if (!all && !unleased) continue;
				unleased = false;
				await renew(all ? 'all' : 'fresh');
			}
		} catch {
			// Redis failures reach the cluster's failure listeners through Bottleneck's own calls.
		} finally {
			renewing = false;
		}
	};
	return {
		started() {
			running++;
			unleased = true;
			void keepRenewing();
		},
		ended() {
			running = Math.max(0, running - 1);
		},
	};
}
