import type { IExecuteFunctions } from 'n8n-workflow';

import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { heldSize } from '../../nodes/SvcMessaging/sending/ledger/ledgerMemory';
import { assertBudget, estimateCredits, readMaxCredits } from '../../nodes/SvcMessaging/sending/policies/policies';
import { readStages } from '../../nodes/SvcMessaging/sending/stages';
import type { RunSource } from '../../nodes/SvcMessaging/sending/stages/stage';
import { sendOnce, type Posted, type SendUnit } from '../../nodes/SvcMessaging/sending/round';
import { openSendRun } from '../../nodes/SvcMessaging/sending/sendRun';
import { API_KEY, fakeContext } from './fakeContext';

const node = { name: 'SVC Messaging', parameters: {} } as Parameters<typeof readMaxCredits>[0];
const units = (...credits: number[]) => credits.map((c, itemIndex) => ({ identity: `u${itemIndex}`, itemIndex, credits: c }));
type Unit = SendUnit & { credits: number };

/** A round over units of given credits: what was posted and the hints. */
async function round(options: object, list: Unit[], mode = 'manual') {
	const { ctx } = fakeContext({ credentials: API_KEY, parameters: { options }, mode, executionId: `e-${Math.random()}` });
	const hints: string[] = [];
	(ctx as unknown as { addExecutionHints: IExecuteFunctions['addExecutionHints'] }).addExecutionHints = (...h) => {
		for (const { message } of h) hints.push(message);
	};
	const posted: string[] = [];
	const run = await openSendRun(ctx, { kind: 'apiKey' });
	const outcomes = await sendOnce(run, list, {
		window: 1,
		postsOf: (pending) => pending,
		unitsOf: (unit) => [unit],
		creditsOf: (unit) => unit.credits,
		price: (unit) => ({ identity: unit.identity, credits: unit.credits }),
		post: async (unit): Promise<Posted<Unit>> => {
			posted.push(unit.identity);
			return [[unit, { ok: true, json: { accepted: true } }]];
		},
	});
	await run.finish();
	return { outcomes, posted, hints };
}

describe('sending/policies/policies.ts, applied by the round', () => {
	beforeEach(() => clearLocalLedger());

	it('Dry Run: each unit priced and marked, nothing posted, nothing held in the ledger, a hint with the total', async () => {
		const before = heldSize();
		const { outcomes, posted, hints } = await round({ dryRun: true }, units(1, 2));
		expect(posted).toEqual([]);
		expect(outcomes).toEqual([
			{ ok: true, json: { identity: 'u0', credits: 1, dryRun: true } },
			{ ok: true, json: { identity: 'u1', credits: 2, dryRun: true } },
		]);
		expect(hints).toEqual(['Dry run: nothing was sent. 2 messages would be sent, about 3 credits. Turn off "Dry Run" to send.']);
		expect(heldSize()).toEqual(before);
	});

	it('Max Credits: an estimate above the budget is refused before the first post, naming both', async () => {
		await expect(round({ maxCredits: 2 }, units(1, 2))).rejects.toMatchObject({
			message: 'CREDIT_BUDGET_EXCEEDED: this send needs about 3 credits, more than "Max Credits" (2). Nothing was sent.',
			context: { errorCode: 'CREDIT_BUDGET_EXCEEDED' },
		});
	});

	it('Max Credits: within the budget everything is posted, and the hint counts the accepted messages', async () => {
		const { posted, hints } = await round({ maxCredits: 3 }, units(1, 2));
		expect(posted).toEqual(['u0', 'u1']);
		expect(hints).toEqual(['Max Credits: about 3 of 3 credits used.']);
	});

	it('estimates: a unit that cannot be counted makes the estimate unknown, which a budget refuses', () => {
		expect(estimateCredits([1, 2, 3], (n) => n)).toBe(6);
		expect(estimateCredits([1, 2], (n) => (n === 2 ? undefined : n))).toBeUndefined();
		expect(() => assertBudget(node, { dryRun: false, maxCredits: 10 }, undefined)).toThrow(/cannot be estimated before sending/);
		expect(() => assertBudget(node, { dryRun: false }, undefined)).not.toThrow();
	});

	it('reads the options: no budget unless set; a negative or non-numeric budget is refused naming the field', async () => {
		// The stages read their own options (no Idempotency Key, no list, not a tool: those read nothing here).
		const read = async (options: object) => await readStages({ node, options, items: 1, parameter: () => '', toolCall: false, identity: { workflowId: 'w' } } as unknown as RunSource);
		expect(await read({})).toEqual({ dryRun: false, cap: expect.anything() });
		expect(await read({ dryRun: true, maxCredits: 0 })).toEqual({ dryRun: true, maxCredits: 0, cap: expect.anything() });
		await expect(read({ maxCredits: 'lots' })).rejects.toThrow('Item 0: "Max Credits" must be a number of credits, 0 or more (got "lots")');
		expect(() => readMaxCredits(node, -1)).toThrow('(got -1)');
	});
});
