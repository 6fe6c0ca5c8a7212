import { chooseSenders } from '../policies/senderByCountry';
import type { Stage } from './stage';

/**
 * Sender ID "Automatic (by Recipient's Country)": first, so that a suppressed, skipped or dry-run
 * item shows the sender it would have had. Decides no unit.
 */
export const senderIdAutomatic: Stage = {
	name: 'Sender ID Automatic',
	async apply(round) {
		const { automaticSender, recipientOf } = round.options;
		if (automaticSender && recipientOf) await chooseSenders(round.run, round.pending, recipientOf, automaticSender);
	},
};
