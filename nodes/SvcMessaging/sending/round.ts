import type { IDataObject } from 'n8n-workflow';

import { alreadySentNote } from './policies/policies';
import { postPending } from './posts';
import { failedUnsent } from './recovery';
import { SEND_STAGES } from './stages';
import type { Round, RoundOptions, SendRun, SendUnit, UnitOutcome } from './stages/stage';

export type { Posted, RoundOptions, SendUnit, UnitOutcome } from './stages/stage';

/**
 * The send-once round, the only place that decides whether a message goes out: the stages, in the
 * order of stages/index.ts (Sender ID Automatic → Do-Not-Send List → Sending Hours → Max Credits →
 * Dry Run → ledger look-up → Idempotency Key → agents' cap), then the posts (posts.ts). The balance,
 * the key's limiter and the ledger were opened with the run (sendRun.ts).
 *
 * Answers each unit's outcome in the order of `units`. The run is NOT marked finished here: the
 * operation shapes its outputs from the outcomes and calls `run.finish()` only when that did not
 * fail (a run that fails must stay open, so that an execution retry finds its sends; Send and Wait
 * finishes after its wait).
 */
export async function sendOnce<U extends SendUnit, W>(run: SendRun, units: U[], options: RoundOptions<U, W>): Promise<UnitOutcome[]> {
	for (const unit of units) {
		unit.outcome = undefined;
		// Only when set: a field added to each of 100,000 units costs memory of its own.
		if (unit.deferred) unit.deferred = undefined;
		if (unit.sender) unit.sender = undefined;
	}
	run.ledger.plan?.(units);
	const round = openRound(run, units, options);
	try {
		for (const stage of SEND_STAGES) {
			await stage.apply(round);
			if (round.ended) return units.map((unit) => unit.outcome!);
		}
		await postPending(round);
		const outcomes = units.map((unit) => unit.outcome!);
		const repeated = outcomes.filter((outcome) => outcome.ok && outcome.json.alreadySent === true).length;
		if (repeated) run.hint(alreadySentNote(repeated, repeated < outcomes.filter((outcome) => outcome.ok && outcome.json.accepted === true).length, options.noun));
		return outcomes;
	} finally {
		for (const watcher of round.watchers) await watcher.end?.();
		// The node's output says "sent" only once n8n's database knows it too: a restart right after
		// the execution ended would otherwise find the last messages under way, not sent.
		await run.ledger.stored?.();
	}
}

function openRound<U extends SendUnit, W>(run: SendRun, units: U[], options: RoundOptions<U, W>): Round<U, W> {
	return {
		run,
		units,
		options,
		// No copy of a 100,000-unit list until a stage decides one of them.
		pending: units,
		ended: false,
		watchers: [],
		price: (unit: U): IDataObject => (unit.sender ? { ...options.price(unit), senderId: unit.sender } : options.price(unit)),
		failUnsent: (failed, error) => failedUnsent(run.node, failed, error),
		settlePending() {
			if (this.pending.some((unit) => unit.outcome)) this.pending = this.pending.filter((unit) => !unit.outcome);
		},
	};
}
