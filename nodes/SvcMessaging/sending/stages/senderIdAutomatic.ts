import { listSenderIds } from '../../api/sms';
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
		if (!automaticSender || !recipientOf) return;
		const { run } = round;
		const send = {
			senderIds: async (itemIndex: number) => await run.callEndpoint(async (service, _body, i) => await listSenderIds(service, i), {}, itemIndex),
			hint: (message: string) => run.hint(message),
		};
		await chooseSenders(send, round.pending, recipientOf, automaticSender);
	},
};
