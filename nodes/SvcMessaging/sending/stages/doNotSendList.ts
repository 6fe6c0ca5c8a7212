import { readDoNotSendNumbers, suppressedNote, suppressListed, suppressWithin } from '../policies/doNotSend';
import type { Stage } from './stage';

/**
 * Do-Not-Send List: a listed number is suppressed (an output item, not sent); a campaign's listed
 * numbers are taken out. Fails closed: a list that cannot be read lets nothing out.
 */
export const doNotSendList: Stage = {
	name: 'Do-Not-Send List',
	read({ node, options, parameter, listRedis }) {
		// Read once for the run, from its first item: a list mapped from 20,000 rows is not evaluated per item.
		const numbers = readDoNotSendNumbers(node, parameter('doNotSend.list.numbers', 0, ''), (options.defaultCountry as string) || undefined);
		return numbers || listRedis ? { doNotSend: { numbers, redis: listRedis } } : {};
	},
	async apply(round) {
		const { doNotSend } = round.run.policies;
		const { recipientOf, numbersOfUnit } = round.options;
		if (!doNotSend || !(recipientOf || numbersOfUnit)) return;
		try {
			const suppressed = recipientOf
				? await suppressListed(doNotSend, round.pending, recipientOf, round.price)
				: await suppressWithin(doNotSend, round.pending, numbersOfUnit!, round.price);
			if (suppressed) round.run.hint(suppressedNote(suppressed));
		} catch (error) {
			round.failUnsent(round.pending.filter((unit) => !unit.outcome), error);
		}
		round.settlePending();
	},
};
