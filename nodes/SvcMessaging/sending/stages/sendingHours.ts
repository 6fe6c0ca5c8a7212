import { skippedNote } from '../policies/policies';
import { applyQuietHours } from '../policies/sendingHours';
import type { Stage } from './stage';

/** Sending Hours: outside them a message is skipped, deferred to the next opening or sent anyway. */
export const sendingHours: Stage = {
	name: 'Sending Hours',
	apply(round) {
		const { run, options } = round;
		const { quietHours, dryRun } = run.policies;
		const { recipientOf, recipientsOf, scheduledAtOf, scheduling = 'scheduledAt' } = options;
		if (!quietHours || !(recipientOf || recipientsOf)) return;
		round.hours = applyQuietHours(run.node, quietHours, round.pending, { recipientOf, recipientsOf, scheduledAtOf, price: round.price, scheduling });
		round.settlePending();
		// A dry run's own hint counts the skipped ones.
		if (round.hours.skipped && !dryRun) run.hint(skippedNote(round.hours.skipped, options.noun));
	},
};
