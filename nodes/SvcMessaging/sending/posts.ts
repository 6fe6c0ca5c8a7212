import { mayHaveBeenProcessed } from '../transport/errors';
import type { LedgerEntry } from './ledger/ledger';
import type { ItemFailure } from './outcomes';
import { unknownOutcome } from './recovery';
import type { Posted, Round, SendUnit } from './stages/stage';
import { underWay } from './underWay';
import { postInWindow, redisLost } from './window';

/**
 * Posts what the stages left to send, a window of posts under way at once (window.ts): per post,
 * "under way" in the ledger (made by the request in its limiter slot: underWay.ts), the post, its
 * outcomes recorded, then the stages' watchers told. After a lost Redis nothing more is posted.
 */
export async function postPending<U extends SendUnit, W>(round: Round<U, W>): Promise<void> {
	const { run, options, watchers } = round;
	const { ledger } = run;
	const settled = async (posted: Posted<U>) => {
		for (const watcher of watchers) await watcher.settled?.(posted);
	};
	const record = async (posted: Posted<U>) => {
		const entries: Array<[string, LedgerEntry | undefined]> = [];
		for (const [unit, outcome] of posted) {
			unit.outcome = outcome;
			if (outcome.ok) entries.push([unit.identity, { outcome: 'accepted', json: outcome.json }]);
			else if (mayHaveBeenProcessed(outcome.error)) entries.push([unit.identity, unknownOutcome(outcome)]);
			else entries.push([unit.identity, undefined]);
		}
		await ledger.record(entries);
	};
	const step = async (post: W): Promise<ItemFailure | undefined> => {
		const postUnits = options.unitsOf(post);
		const identities = postUnits.map((unit) => unit.identity);
		const mark = underWay(run.node, ledger, identities);
		for (const watcher of watchers) watcher.started?.(postUnits);
		// A long run's row is written in gathers: its mark is made before the post waits for its turn.
		if (ledger.marksInSlot?.(identities) === false) await mark.begin().catch(() => undefined);
		let posted = mark.failed ? [] : await options.post(post, mark.begin);
		if (mark.failed) {
			// Not posted: the ledger could not mark it. Whatever one store took goes again.
			await ledger.record(identities.map((identity) => [identity, undefined]));
			round.failUnsent(postUnits, mark.failed.error);
			posted = postUnits.map((unit) => [unit, unit.outcome!]);
			await settled(posted);
			return postUnits[0].outcome?.ok === false ? postUnits[0].outcome : undefined;
		}
		// A post that returned without reaching its request (it failed before) marked nothing; one that
		// sent without calling begin (none should) is marked now, late rather than never.
		if (!mark.began && posted.some(([, outcome]) => outcome.ok || mayHaveBeenProcessed(outcome.error))) await ledger.begin(identities).catch(() => undefined);
		await record(posted);
		await settled(posted);
		const failed = posted.find(([, outcome]) => !outcome.ok)?.[1];
		if (failed && !failed.ok && options.stopOnFailure) throw failed.error;
		for (const [, outcome] of posted) {
			const lost = redisLost(outcome);
			if (lost) return lost;
		}
		return undefined;
	};
	const { notStarted, lost } = await postInWindow(options.postsOf(round.pending), options.window, step);
	// What was not started fails together, unsent (never marked under way, so nothing to record).
	for (const post of notStarted) {
		const rest = options.unitsOf(post);
		for (const unit of rest) unit.outcome = { ok: false, itemIndex: unit.itemIndex, error: lost!.error };
		for (const watcher of watchers) watcher.unposted?.(rest);
	}
	for (const watcher of watchers) watcher.finished?.();
}
