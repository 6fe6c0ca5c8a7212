import { assertBudget, budgetNote, estimateCredits, readMaxCredits } from '../policies/policies';
import type { Stage } from './stage';

/**
 * Max Credits: the estimate of what is left to send (a dry run's total too) must fit the budget, or
 * the whole send is refused before its first request. The posts then count what was used.
 */
export const maxCredits: Stage = {
	name: 'Max Credits',
	read: ({ node, options }) => ({ maxCredits: readMaxCredits(node, options.maxCredits) }),
	apply(round) {
		const { run, options } = round;
		const budget = run.policies.maxCredits;
		if (budget === undefined && !run.policies.dryRun) return;
		round.estimate = estimateCredits(round.pending, options.creditsOf);
		assertBudget(run.node, run.policies, round.estimate);
		if (budget === undefined) return;
		// Read as a post starts: Send Bulk releases a recipient's values once its call is posted.
		const credits = new Map<unknown, number>();
		let used = 0;
		round.watchers.push({
			started: (units) => units.forEach((unit) => credits.set(unit, options.creditsOf(unit) ?? 0)),
			settled: (posted) => {
				for (const [unit, outcome] of posted) {
					if (outcome.ok) used += credits.get(unit) ?? 0;
					credits.delete(unit);
				}
			},
			finished: () => run.hint(budgetNote(used, round.estimate, budget)),
		});
	},
};
