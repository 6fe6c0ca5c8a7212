import { digest } from '../transport/redis';
import type { DurableMarks } from './durableMarks';
import type { EarlierEntry, RunIdentity, SendLedger } from './ledger';

/** Where a mark in n8n's database came from: it keeps no execution, output or time. */
const BEFORE_RESTART = { executionId: 'unknown (an earlier try, kept in n8n’s database)' };

const ACCEPTED_BEFORE: EarlierEntry = {
	outcome: 'accepted',
	json: {
		status: 'ACCEPTED',
		note: 'The service accepted this message in an earlier try; n8n’s database keeps only that, not its output (message ID).',
	},
	sentIn: BEFORE_RESTART,
};

const UNKNOWN_BEFORE: EarlierEntry = {
	outcome: 'unknown',
	message: 'it was being sent when n8n stopped, and its answer was not recorded',
	description: 'n8n’s database holds the mark written before it was posted, and no answer to it.',
	sentIn: BEFORE_RESTART,
};

/**
 * The send ledger of an n8n without the shared Redis, with its record in n8n's database
 * (durableMarks.ts) beside the in-process one: a retry after n8n restarted finds there what the
 * in-process ledger forgot. Messages are marked under way before they are posted and accepted
 * when they are; the in-process ledger answers first (it keeps the outputs).
 */
export function withDurableMarks(ledger: SendLedger, identity: RunIdentity, marks: DurableMarks): SendLedger {
	const keyOf = (message: string) => digest(`${identity.workflowId}\u0000${identity.nodeId}\u0000${message}`);
	return {
		consult: ledger.consult,
		held: (identities) => ledger.held(identities),
		async lookup(identities) {
			const found = await ledger.lookup(identities);
			// What this process holds it judges itself (a finished run's entry past its hour, for one).
			const held = ledger.held(identities);
			const missing = found.flatMap((entry, i) => (entry || held[i] ? [] : [i]));
			const durable = await marks.lookup(missing.map((i) => keyOf(identities[i])));
			missing.forEach((i, n) => {
				if (durable[n] === 'accepted') found[i] = ACCEPTED_BEFORE;
				else if (durable[n] === 'unknown') found[i] = UNKNOWN_BEFORE;
			});
			return found;
		},
		async begin(identities) {
			await ledger.begin(identities);
			await marks.begin(identities.map(keyOf));
		},
		async record(entries) {
			await ledger.record(entries);
			const accepted: string[] = [];
			const notSent: string[] = [];
			for (const [message, entry] of entries) {
				if (!entry) notSent.push(keyOf(message));
				else if (entry.outcome === 'accepted') accepted.push(keyOf(message));
			}
			// The messages were sent: a database failure here must not turn them into errors. Their
			// marks stay "under way": a retry after a restart reports them as of unknown outcome.
			await Promise.all([marks.accepted(accepted), marks.notSent(notSent)]).catch(() => undefined);
		},
		finish: async () => await ledger.finish(),
	};
}
