import type { IDataObject } from 'n8n-workflow';

import { checkTimeZone } from '../../rules/timeZone';
import { skippedNote } from '../policies/policies';
import { itemTimeZones, readQuietHours } from '../policies/quietHours';
import { applyQuietHours } from '../policies/sendingHours';
import type { Stage } from './stage';

const TIME_ZONE = 'options.sendingHours.hours.timeZone';

/** Sending Hours: outside them a message is skipped, deferred to the next opening or sent anyway. */
export const sendingHours: Stage = {
	name: 'Sending Hours',
	read({ node, options, items, parameter, mapped, workflowZone }) {
		const value = options.sendingHours as IDataObject | undefined;
		if (!value?.hours) return {};
		const zoneOf = itemTimeZones((i) => checkTimeZone(node, parameter(TIME_ZONE, i, ''), i), items, mapped(TIME_ZONE), workflowZone);
		return { quietHours: readQuietHours(node, value, zoneOf) };
	},
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
