import { olderRunNote, unknownOutcomeError } from '../recovery';
import type { Stage } from './stage';

/**
 * The send ledger's look-up (an execution Retry, Retry On Fail, a resumed run): a unit an earlier
 * try sent is answered with its earlier output (`alreadySent: true`); one it may have sent (its
 * answer was lost) is refused unless "Resend Messages With Unknown Outcome". A ledger that cannot
 * answer fails the units unsent.
 */
export const ledgerLookup: Stage = {
	name: 'Send ledger look-up',
	async apply(round) {
		const { run, options } = round;
		if (!run.ledger.consult) return;
		const asked = round.pending;
		const known = await run.ledger.lookup(asked.map((unit) => unit.identity)).catch((error: unknown) => {
			round.failUnsent(asked, error);
			return [];
		});
		const older = run.ledger.olderRunAt?.();
		if (older !== undefined) run.hint(olderRunNote(older));
		const pending: typeof asked = [];
		asked.forEach((unit, n) => {
			const earlier = known[n];
			if (unit.outcome) return;
			if (earlier?.outcome === 'accepted') {
				const json = options.repeatedAsIs ? earlier.json : { alreadySent: true, ...earlier.json, sentIn: { ...earlier.sentIn } };
				unit.outcome = { ok: true, json };
			} else if (earlier?.outcome === 'unknown' && !run.resendUnknown) {
				const error = options.refuseUnknown?.(earlier, unit) ?? unknownOutcomeError(run.node, earlier, unit.itemIndex);
				unit.outcome = { ok: false, itemIndex: unit.itemIndex, error };
			} else {
				pending.push(unit);
			}
		});
		round.pending = pending;
	},
};
