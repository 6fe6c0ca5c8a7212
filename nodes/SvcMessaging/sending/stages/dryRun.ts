import { peekKeys } from '../keys/idempotency';
import { dryRunNote } from '../policies/policies';
import type { Stage } from './stage';

/**
 * Dry Run: every unit still to send is priced and answered; nothing is posted, marked or claimed
 * (an Idempotency Key is only looked at). Ends the round.
 */
export const dryRun: Stage = {
	name: 'Dry Run',
	read: ({ options }) => ({ dryRun: options.dryRun === true }),
	async apply(round) {
		const { run, units, pending } = round;
		if (!run.policies.dryRun) return;
		// Suppressed or skipped by Sending Hours: marked too (nothing would have been sent either way).
		for (const unit of units) if (unit.outcome?.ok) unit.outcome.json.dryRun = true;
		for (const unit of pending) {
			const when = unit.deferred ? { ...unit.deferred, ...(unit.deferred.scheduledAt ? { sendAt: unit.deferred.scheduledAt } : {}) } : undefined;
			unit.outcome = { ok: true, json: { ...round.price(unit), ...when, dryRun: true } };
		}
		if (run.keys) await peekKeys(run.keys, pending).catch((error: unknown) => round.failUnsent(pending, error));
		run.hint(dryRunNote(pending.length, round.estimate, run.policies.maxCredits, round.options.noun, round.hours));
		round.ended = true;
	},
};
