/**
 * A run killed, n8n restarted (no Redis), the execution retried: a Retry sends the new numbers of a
 * list that goes on past an earlier run's (a level's last block is never recorded
 * whole), and a Retry of a run older than the marks n8n's database keeps says so.
 * n8n-core's contexts, n8n's processed-data store as jest plays it (test/helpers/processedData.ts);
 * the kill is the row as it was at that moment, and every request after it never processed. Every
 * message is counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNodeWithHints, type NodeSetup } from '../helpers/n8n';
import { processedData, restartWithRows } from '../helpers/processedData';
import { waitFor } from '../helpers/waitFor';
import { SEED_LOGINS, sendParameters } from './fixtures';

const emu = useEmulator({ per: 'test' });
let run = 0;
beforeEach(() => {
	run++;
	emu.control.updateAccount(SEED_LOGINS.demo.accountId, { credits: 100_000 });
});

const phones = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(base + run * 10_000 + i).padStart(8, '0')}` }));
const smsNumbers = () => emu.control.messages().map((m) => m.phoneNumber);
const countOf = (list: string[]) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
const settings = { onError: 'continueRegularOutput' as const };

async function attempt(setup: NodeSetup, items: object[]) {
	try {
		return await executeNodeWithHints(setup, items as never);
	} catch (error) {
		return { output: [[]], hints: [], error: error as Error };
	}
}

/**
 * Runs a send and kills it once `passing` requests reached the service and `inFlight` more are held
 * there (answered after the kill, as a service answers what n8n sent before it died); every later
 * request is never processed. Answers the node row as it was at the kill, once the run is over.
 */
async function killedRun(setup: NodeSetup, items: object[], passing: number, inFlight: number) {
	emu.control.addFault({ kind: 'slow', delayMs: 1, pathPrefix: '/api/sms/send-api', count: passing });
	emu.control.addFault({ kind: 'slow', delayMs: 2_000, pathPrefix: '/api/sms/send-api', count: inFlight });
	emu.control.addFault({ kind: 'drop-before-processing', pathPrefix: '/api/sms/send-api', count: 100_000 });
	// Stop on error (the default): the run fails and stays open, and does not take its marks out after the kill.
	const first = attempt({ ...setup, settings: undefined }, items);
	await waitFor('the kill', () => !emu.control.faults().some((f) => f.kind === 'slow'), 120_000, 1);
	const atKill = new Map(processedData.rows);
	await first;
	// What the killed run would have written later is not the database's: its last writes are done before the restart.
	await new Promise((resolve) => setTimeout(resolve, 500));
	emu.control.clearFaults();
	return atKill;
}

const numbersOf = (items: Array<{ phone: string }>, output: Array<{ json: Record<string, unknown>; pairedItem?: unknown }>, errorCode: string) =>
	output.filter((i) => i.json.errorCode === errorCode).map((i) => items[(i.pairedItem as { item: number }).item].phone);

describe('a run killed, n8n restarted, the execution retried (no Redis)', () => {
	it('G2: run A sends 500 and finishes; run B (those 500 + 400 new) is killed 70 in; its Retry sends each new number once, refusing none of them', async () => {
		const earlier = phones(71_000_000, 500);
		const fresh = phones(72_000_000, 400);
		const items = [...earlier, ...fresh];
		const workflowId = `g2-${run}`;
		const setup = { parameters: sendParameters(), credentials: apiKeyCredentials(emu.url), workflowId, settings };
		const a = await attempt({ ...setup, executionId: `g2-${run}-a` }, earlier);
		expect(a.output[0].filter((i) => i.json.accepted === true)).toHaveLength(500);
		const atKill = await killedRun({ ...setup, executionId: `g2-${run}-b` }, items, 60, 10);
		const sentByB = smsNumbers().slice(500);
		expect(sentByB).toHaveLength(70);

		restartWithRows(atKill);
		const retry = await attempt({ ...setup, executionId: `g2-${run}-c`, mode: 'retry' }, items);
		const out = retry.output[0];
		expect(out).toHaveLength(900);
		const freshNumbers = new Set(fresh.map(({ phone }) => phone));
		expect(numbersOf(items, out, 'UNKNOWN_OUTCOME').filter((number) => freshNumbers.has(number))).toEqual([]);
		const counts = countOf(smsNumbers());
		for (const { phone } of fresh) expect([phone, counts.get(phone)]).toEqual([phone, 1]);
		// A's numbers: the Retry sends none of them again (A sent them within the hour, B some of them).
		for (const { phone } of earlier) expect(counts.get(phone)).toBeLessThanOrEqual(sentByB.includes(phone) ? 2 : 1);
	}, 180_000);

	it('a Retry 25 h after the kill: the marks kept 12–24 h are past, and its hint says so', async () => {
		const items = phones(73_000_000, 300);
		const workflowId = `old-${run}`;
		const setup = { parameters: sendParameters(), credentials: apiKeyCredentials(emu.url), workflowId, settings };
		const atKill = await killedRun({ ...setup, executionId: `o-${run}-a` }, items, 250, 5);
		// A Retry within the bound: no such hint (first: the key's limiter cannot go back in time).
		restartWithRows(atKill);
		const soon = await attempt({ ...setup, executionId: `o-${run}-b`, mode: 'retry' }, items);
		expect(soon.hints.join('\n')).not.toMatch(/12–24 hours/);
		restartWithRows(atKill);
		const realNow = Date.now.bind(Date);
		const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 25 * 3600 * 1000);
		try {
			const retry = await attempt({ ...setup, executionId: `o-${run}-c`, mode: 'retry' }, items);
			expect(retry.hints.join('\n')).toMatch(/began more than 12–24 hours before this Retry/);
			expect(retry.hints.join('\n')).toMatch(/may have been sent twice/);
		} finally {
			later.mockRestore();
		}
	}, 180_000);
});
