import { claimKeys } from '../keys/idempotency';
import { readRunKeys } from '../keys/runKeys';
import type { Stage } from './stage';

/**
 * Idempotency Key: each key is claimed (atomically) before its message goes; a key sent before
 * answers its first result (`alreadySent`). The posts settle each key with its result; a key whose
 * message was never posted is released when the round ends.
 */
export const idempotencyKey: Stage = {
	name: 'Idempotency Key',
	read: async (source) => ({ keys: await readRunKeys(source) }),
	async apply(round) {
		const { run, pending } = round;
		const keys = run.keys;
		if (!keys) return;
		const claims = await claimKeys(run.node, keys, pending, run.resendUnknown).catch((error: unknown) =>
			round.failUnsent(pending.filter((unit) => keys.of(unit.itemIndex)), error),
		);
		round.pending = claims ? claims.post : pending.filter((unit) => !unit.outcome);
		round.watchers.push({
			started: (units) => claims?.started(units),
			settled: async (posted) => await claims?.settle(posted),
			end: async () => {
				await claims?.end();
				// The output says "sent" only once n8n's database knows the keys too.
				await keys.store.stored?.();
			},
		});
	},
};
