import type Bottleneck from '../platform/bottleneck';
import { sleep } from 'n8n-workflow';

import type { RedisClient } from './redis';

/**
 * A shared limit's slots are leases: each slot's job is registered in Redis with an expiration of
 * LEASE_MS (Bottleneck's own job expiration, set atomically when the slot is taken), and this
 * process renews all its running slots every RENEW_EVERY_MS while it has any. A process that died
 * (SIGKILL, out of memory) stops renewing, so its slots return to the others within LEASE_MS (the
 * next Redis call of any process on the key frees them). Bottleneck would also fail a job locally
 * when its expiration passes: `claim` cancels that local timer as the slot starts, so a living
 * process keeps its slot until its request and hold are over — unless its event loop stands still
 * for longer than LEASE_MS − RENEW_EVERY_MS (docs/assumptions.md). No Redis call per request:
 * leasing each slot with a call of its own cost 6 points of Business's rate across 4 processes on a
 * loaded machine, and a heartbeat of 1 s (Bottleneck's heartbeatInterval) 13.
 */
export const LEASE_MS = 6_000;
export const RENEW_EVERY_MS = 1_000;

/**
 * Sets the expiry of this client's running jobs in Bottleneck's own job-expiration set (the one
 * its scripts free expired jobs from). `XX`: a job already freed is never put back.
 */
const RENEW = `
local renewed = 0
for _, index in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do
  if redis.call('hget', KEYS[2], index) == ARGV[1] then
    redis.call('zadd', KEYS[1], 'XX', ARGV[2], index)
    renewed = renewed + 1
  end
end
return renewed`;

export interface SlotLease {
	/** Job options for a slot: a lease of LEASE_MS under the id `claim` will be given. */
	options(jobId: string): { id: string; expiration: number };
	/** The slot `jobId` started: its local expiration is cancelled, and it is renewed while it runs. */
	claim(jobId: string): void;
	/** A slot of this process is over (its job then frees it in Redis). */
	ended(): void;
}

/** Bottleneck 2.19.5's record of a job it runs (lib/Bottleneck.js _run): its local expiration timer. */
type Scheduled = Record<string, { expiration?: { close(): unknown }; job: { options: { id: string } } }>;

/** `id`: the clustered Bottleneck's id; `client`: its Redis connection; `isOpen`: false once failed. */
export function slotLease(bottleneck: Bottleneck, id: string, client: RedisClient, isOpen: () => boolean): SlotLease {
	// Bottleneck's key names and client id (bottleneck 2.19.5, lib/Scripts.js and RedisDatastore.js):
	// the job expirations (index → expiry) and the job clients (index → client id).
	const keys = [`b_${id}_job_expirations`, `b_${id}_job_clients`];
	const internals = bottleneck as unknown as { _store: { clientId: string }; _scheduled: Scheduled };
	const clientId = internals._store.clientId;
	let running = 0;
	let renewing = false;
	// Scores are the registering client's Date.now(), as in Bottleneck's own scripts.
	const renew = async () => {
		await client.eval(RENEW, 2, ...keys, clientId, String(Date.now() + LEASE_MS));
	};
	const keepRenewing = async () => {
		if (renewing) return;
		renewing = true;
		try {
			while (running > 0 && isOpen()) {
				await sleep(RENEW_EVERY_MS);
				await renew();
			}
		} catch {
			// Redis failures reach the cluster's failure listeners through Bottleneck's own calls.
		} finally {
			renewing = false;
		}
	};
	return {
		options: (jobId) => ({ id: jobId, expiration: LEASE_MS }),
		claim(jobId) {
			running++;
			for (const scheduled of Object.values(internals._scheduled)) {
				if (scheduled.job.options.id === jobId) scheduled.expiration?.close();
			}
			void keepRenewing();
		},
		ended() {
			running = Math.max(0, running - 1);
		},
	};
}
