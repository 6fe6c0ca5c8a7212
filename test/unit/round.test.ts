import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import { heldSize } from '../../nodes/SvcMessaging/sending/ledger/ledgerMemory';
import { failureOf } from '../../nodes/SvcMessaging/sending/outcomes';
import { sendOnce, type Posted, type SendUnit, type UnitOutcome } from '../../nodes/SvcMessaging/sending/round';
import { finishRun, openSendRun } from '../../nodes/SvcMessaging/sending/sendRun';
import { SEND_LEDGER } from '../../nodes/SvcMessaging/sending/ledger/ledgerBounds';
import { accountCredential, API_KEY, fakeContext } from './fakeContext';

/** A post that accepts every unit except those named, which fail as "may have been processed" (a timeout). */
function poster(timedOut: string[] = []) {
	const posted: string[] = [];
	const post = async (ctx: IExecuteFunctions, unit: SendUnit): Promise<Posted<SendUnit>> => {
		posted.push(unit.identity);
		if (timedOut.includes(unit.identity)) {
			const error = new NodeOperationError(ctx.getNode(), 'no answer', { itemIndex: unit.itemIndex });
			error.context.mayHaveBeenProcessed = true;
			return [[unit, failureOf(ctx, error, unit.itemIndex)]];
		}
		return [[unit, { ok: true, json: { accepted: true, id: unit.identity } }]];
	};
	return { posted, post };
}

/** One post per unit, one at a time (the order the tests read). */
const oneEach = {
	window: 1,
	postsOf: (pending: SendUnit[]) => pending,
	unitsOf: (unit: SendUnit) => [unit],
	creditsOf: () => 1,
	price: (unit: SendUnit) => ({ identity: unit.identity }),
};
const units = (...ids: string[]) => ids.map((identity, itemIndex) => ({ identity, itemIndex }));
const failIfAnyFailed = (outcomes: UnitOutcome[]) => {
	const failed = outcomes.find((o) => !o.ok);
	if (failed && !failed.ok) throw failed.error;
	return outcomes;
};

interface SendCase {
	post: (unit: SendUnit) => Promise<Posted<SendUnit>>;
	creditsNeeded?: number;
	/** Send and Wait: the run is finished when its wait is (finishRun) */
	finishesLater?: boolean;
	/** the operation's shaping of the outcomes; a throw leaves the run open */
	shape?: (outcomes: UnitOutcome[]) => UnitOutcome[];
}

/** A send as an operation makes it: open the run, send once, shape the outcomes, then finish the run. */
async function send(ctx: IExecuteFunctions, sendUnits: SendUnit[], { post, creditsNeeded, finishesLater, shape = (o) => o }: SendCase) {
	const run = await openSendRun(ctx, { kind: 'apiKey', creditsNeeded });
	const outcomes = shape(await sendOnce(run, sendUnits, { ...oneEach, post }));
	if (!finishesLater) await run.finish();
	return outcomes;
}

describe('sending/round.ts: the send-once round with the in-process ledger', () => {
	beforeEach(() => clearLocalLedger());

	it('posts each unit once and gives the outcomes in unit order', async () => {
		const { ctx } = fakeContext({ credentials: API_KEY });
		const { posted, post } = poster();
		const outcomes = await send(ctx, units('a', 'b'), { post: async (u) => await post(ctx, u) });
		expect(posted).toEqual(['a', 'b']);
		expect(outcomes).toEqual([
			{ ok: true, json: { accepted: true, id: 'a' } },
			{ ok: true, json: { accepted: true, id: 'b' } },
		]);
	});

	it('an execution retry of a failed run reports what was accepted, refuses what may have been sent, and posts nothing', async () => {
		const first = fakeContext({ credentials: API_KEY, executionId: 'e1' });
		const firstPost = poster(['b']);
		await expect(
			send(first.ctx, units('a', 'b', 'c'), { post: async (u) => await firstPost.post(first.ctx, u), shape: failIfAnyFailed }),
		).rejects.toThrow('no answer');
		expect(firstPost.posted).toEqual(['a', 'b', 'c']);

		const retry = fakeContext({ credentials: API_KEY, executionId: 'e2', mode: 'retry' });
		const retryPost = poster();
		const outcomes = await send(retry.ctx, units('a', 'b', 'c'), { post: async (u) => await retryPost.post(retry.ctx, u) });
		expect(retryPost.posted).toEqual([]);
		// Which execution the match came from, and when (n8n does not tell a node which execution it retries).
		const sentIn = { executionId: 'e1', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) };
		expect(outcomes[0]).toEqual({ ok: true, json: { accepted: true, id: 'a', alreadySent: true, sentIn } });
		expect(outcomes[1]).toMatchObject({ ok: false });
		const refused = (outcomes[1] as { error: Error & { description?: string } }).error;
		expect(refused.message).toMatch(/^An earlier try may already have sent this message/);
		expect(refused.description).toMatch(/The earlier try: execution e1 at \d{4}-/);
		expect(outcomes[2]).toEqual({ ok: true, json: { accepted: true, id: 'c', alreadySent: true, sentIn } });
	});

	it('with "Resend Messages With Unknown Outcome" a retry sends only the unknown one again', async () => {
		const first = fakeContext({ credentials: API_KEY, executionId: 'e1' });
		await expect(
			send(first.ctx, units('a', 'b'), { post: async (u) => await poster(['b']).post(first.ctx, u), shape: failIfAnyFailed }),
		).rejects.toThrow();
		const retry = fakeContext({ credentials: API_KEY, executionId: 'e2', mode: 'retry', parameters: { options: { resendUnknownOutcome: true } } });
		const retryPost = poster();
		await send(retry.ctx, units('a', 'b'), { post: async (u) => await retryPost.post(retry.ctx, u) });
		expect(retryPost.posted).toEqual(['b']);
	});

	it('a run that finished is matched by a retry within SEND_LEDGER.finishedRunRetryWindowMs, not by a later one', async () => {
		const first = fakeContext({ credentials: API_KEY, executionId: 'e1' });
		await send(first.ctx, units('a'), { post: async (u) => await poster().post(first.ctx, u) });
		// A crash after the node succeeded, progress not saved: the Retry soon after sends nothing again.
		const soon = fakeContext({ credentials: API_KEY, executionId: 'e2', mode: 'retry' });
		const none = poster();
		const [repeated] = await send(soon.ctx, units('a'), { post: async (u) => await none.post(soon.ctx, u) });
		expect(none.posted).toEqual([]);
		expect(repeated).toMatchObject({ ok: true, json: { alreadySent: true } });
		// The same message a day later (yesterday's reminder) is a new message.
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + SEND_LEDGER.finishedRunRetryWindowMs + 1000);
		try {
			const retry = fakeContext({ credentials: API_KEY, executionId: 'e3', mode: 'retry' });
			const again = poster();
			await send(retry.ctx, units('a'), { post: async (u) => await again.post(retry.ctx, u) });
			expect(again.posted).toEqual(['a']);
		} finally {
			later.mockRestore();
		}
	});

	it('a run that finishes later (Send and Wait) stays open until finishRun; the retry window then counts from the finish', async () => {
		const first = fakeContext({ credentials: API_KEY, executionId: 'w1' });
		await send(first.ctx, units('w'), { post: async (u) => await poster().post(first.ctx, u), finishesLater: true });
		const realNow = Date.now.bind(Date);
		const window = SEND_LEDGER.finishedRunRetryWindowMs;
		let offset = window + 1000;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
		try {
			const retry = fakeContext({ credentials: API_KEY, executionId: 'w2', mode: 'retry' });
			const none = poster();
			await send(retry.ctx, units('w'), { post: async (u) => await none.post(retry.ctx, u) });
			expect(none.posted).toEqual([]);
			// The wait ends more than the window after the message was written: a retry soon after still finds it.
			await finishRun(first.ctx);
			const soon = fakeContext({ credentials: API_KEY, executionId: 'w3', mode: 'retry' });
			const stillNone = poster();
			await send(soon.ctx, units('w'), { post: async (u) => await stillNone.post(soon.ctx, u) });
			expect(stillNone.posted).toEqual([]);
			// The window past the finish, the same message is a new one.
			offset += window + 1000;
			const after = fakeContext({ credentials: API_KEY, executionId: 'w4', mode: 'retry' });
			const again = poster();
			await send(after.ctx, units('w'), { post: async (u) => await again.post(after.ctx, u) });
			expect(again.posted).toEqual(['w']);
		} finally {
			clock.mockRestore();
		}
	});

	it('a finished run is marked so: its entries are the first to go past the bound; a failed run is not', async () => {
		const before = heldSize();
		const failed = fakeContext({ credentials: API_KEY, executionId: 'e-kept' });
		await expect(
			send(failed.ctx, units('k1', 'k2'), { post: async (u) => await poster(['k2']).post(failed.ctx, u), shape: failIfAnyFailed }),
		).rejects.toThrow();
		expect(heldSize()).toMatchObject({ entries: before.entries + 2, finishedRuns: before.finishedRuns });
		const done = fakeContext({ credentials: API_KEY, executionId: 'e-done' });
		await send(done.ctx, units('d1', 'd2', 'd3'), { post: async (u) => await poster().post(done.ctx, u) });
		expect(heldSize()).toMatchObject({ entries: before.entries + 5, finishedRuns: before.finishedRuns + 1 });
	});

	it('the round answers the outcomes and leaves the run open: only run.finish() marks it finished', async () => {
		const before = heldSize();
		const { ctx } = fakeContext({ credentials: API_KEY, executionId: 'e-open' });
		const run = await openSendRun(ctx, { kind: 'apiKey' });
		const outcomes = await sendOnce(run, units('o1', 'o2'), { ...oneEach, post: async (u) => await poster().post(ctx, u) });
		expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
		expect(heldSize()).toMatchObject({ entries: before.entries + 2, finishedRuns: before.finishedRuns });
		// Until then an execution retry finds both sends, however long after.
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + SEND_LEDGER.finishedRunRetryWindowMs + 1000);
		try {
			const retry = fakeContext({ credentials: API_KEY, executionId: 'e-open-retry', mode: 'retry' });
			const none = poster();
			await send(retry.ctx, units('o1', 'o2'), { post: async (u) => await none.post(retry.ctx, u) });
			expect(none.posted).toEqual([]);
		} finally {
			later.mockRestore();
		}
		await run.finish();
		expect(heldSize()).toMatchObject({ finishedRuns: before.finishedRuns + 1 });
	});

	it('checks the balance before anything else, and sends nothing when it is short', async () => {
		const { ctx, requests } = fakeContext({
			credentials: { ...API_KEY, ...accountCredential() },
			answer: () => ({ body: { success: true, data: { credits: 1 } } }),
		});
		const { posted, post } = poster();
		await expect(
			send(ctx, units('a', 'b'), { post: async (u) => await post(ctx, u), creditsNeeded: 2 }),
		).rejects.toMatchObject({ context: { errorCode: 'INSUFFICIENT_CREDITS' } });
		expect(posted).toEqual([]);
		expect(requests.map((r) => r.url)).toEqual(['http://svc.test/api/account/balance']);
	});
});
