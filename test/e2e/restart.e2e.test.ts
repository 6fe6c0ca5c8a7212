/**
 * Never twice where most users run: one n8n with SQLite and no Redis, of this file's own, restarted
 * (the suite's shared n8n stays up for the other files).
 * - n8n is killed (SIGKILL, as an out-of-memory kill does) in the middle of a 300-item Send, started
 *   again on the same folder, and the crashed execution is retried as a user does (Executions →
 *   Retry). The send ledger's record in n8n's own database (its processed-data table) must make the
 *   Retry send no number a second SMS and leave no number silently without one; and (at Free) refuse
 *   as of unknown outcome only the messages that may have reached the service: those whose request
 *   was under way, or in its limiter slot with its mark written, at the kill (never the window's
 *   messages still waiting for their turn).
 * - The same with one execution of 900 at Business (100/s), killed past its first 200 messages,
 *   where the run's "under way" record is its lead (sending/ledger/runLead.ts): the Retry refuses,
 *   of what never reached the service, only the few requests under way and the lead's places ahead.
 * - An Idempotency Key sent before n8n is stopped and started again is still known (the node's
 *   processed-data row): the same workflow sends no second SMS.
 * Counted at the emulator.
 */
import { sendWindow } from '../../nodes/SvcMessaging/sending/window';
import { PLANS } from '../../nodes/SvcMessaging/transport/service';
import { EmulatorClient, emulatorCredentials, N8n } from './harness';
import { killMidSendThenRetry } from './harness/restartRetry';
import { credential, expectSuccess, jsonOf, keyedSmsSend, out } from './context';

const emulator = new EmulatorClient(process.env.E2E_EMULATOR_URL!);
const ITEMS = 300;
const LONG_ITEMS = 900;
let n8n: N8n;

beforeAll(async () => {
	n8n = await N8n.start({ credentials: emulatorCredentials(emulator.url) });
	// Two sends of 300 and one of 900 on the demo account, whatever the suite's other files spent of its credits.
	const { credits } = await emulator.account('acc_demo');
	await emulator.patchAccount('acc_demo', { credits: Number(credits) + 2 * ITEMS + LONG_ITEMS });
}, 240_000);
afterAll(async () => {
	await n8n?.stop();
});

/** The self-hosted node with `plan`'s key, `count` numbers, killed once `killAfter` messages are out (harness/restartRetry.ts). */
const killedMidSendThenRetried = async (plan: 'free' | 'starter' | 'business', killAfter: number, count = ITEMS) =>
	await killMidSendThenRetry({
		n8n,
		emulator,
		send: { credentials: { svcMessagingApi: credential(plan) } },
		label: `e2e-restart-${plan}`,
		phonePrefix: `+2547${{ free: 151, starter: 150, business: 152 }[plan]}`,
		items: count,
		killAfter,
	});

test('SIGKILL mid-send, restart, Retry: 0 numbers with two SMS, 0 numbers left without one unreported', async () => {
	// Starter sends 20 a second: kill n8n once about a third has gone out.
	const r = await killedMidSendThenRetried('starter', 100);
	expect(r.output).toHaveLength(ITEMS);
	expect(r.twice).toBe(0);
	// A number without an SMS is one the Retry reported as of unknown outcome (it was under way at the kill).
	expect(r.lost).toBe(0);
	// Messages under way at the kill (at most one window of the plan's rate) and those accepted just
	// before it whose accepted mark the next group write would have taken (well under another window).
	expect(r.unknown).toBeLessThanOrEqual(2 * sendWindow(PLANS.starter));
	expect(r.alreadySent).toBeGreaterThanOrEqual(r.sentBeforeKill - r.unknown);
}, 420_000);

test('SIGKILL mid-send at Free, Retry: the unknown outcomes are only requests under way or in their slot at the kill, not the window waiting; every other number is sent once', async () => {
	// Free sends 5 a second: 100 messages out after ~20 s, a request under way every 200 ms.
	const r = await killedMidSendThenRetried('free', 100);
	expect(r.output).toHaveLength(ITEMS);
	expect(r.twice).toBe(0);
	expect(r.lost).toBe(0);
	// A message still waiting for its turn is sent by the Retry, not refused as of unknown outcome:
	// only one in its limiter slot can be, its mark written and its request not yet out when n8n died
	// (Free's slots are 200 ms apart; a mark marked before the turn would make up to a window of 10).
	expect(r.unknownNeverReceived).toBeLessThanOrEqual(2);
	// No more than the requests that can be under way at once.
	expect(r.unknown).toBeLessThanOrEqual(sendWindow(PLANS.free));
}, 420_000);

test('SIGKILL past a long run’s first 200 messages at Business (100/s), Retry: never twice, and of the numbers that never reached the service only the few under way or under the run’s lead are refused', async () => {
	const r = await killedMidSendThenRetried('business', 420, LONG_ITEMS);
	expect(r.output).toHaveLength(LONG_ITEMS);
	expect(r.sentBeforeKill).toBeGreaterThan(200);
	expect(r.twice).toBe(0);
	expect(r.lost).toBe(0);
	// Requests under way when n8n died and the lead's places past them: 20 never sent at load 2 (a lead
	// of 20, SEND_LEDGER.durable.leadStep); a loaded machine's posts wait longer between their slot and
	// the service. At most half a send window: a mark made before the turn refused up to a whole window
	// of 200 never sent (61–187 seen).
	expect(r.unknownNeverReceived).toBeLessThanOrEqual(sendWindow(PLANS.business) / 2);
}, 420_000);

describe('Idempotency Key through an n8n restart (no Redis: the node’s processed-data row)', () => {
	const run = Date.now().toString(36);
	// This run's messages to the number: other files share the emulator, and may text the same number.
	const smsTo = async (phone: string) => (await emulator.messages()).filter((m) => m.phoneNumber === phone && String(m.reference).endsWith(`-${run}`));

	test('sent, n8n stopped and started again, the same workflow with the key: still 1 SMS, reported alreadySent', async () => {
		const phone = '+254712004113';
		const prepared = await n8n.prepareRun(keyedSmsSend());
		const body = { items: [{ phone, text: 'Your order shipped', ref: `e2e-c-${run}` }] };
		await prepared.post(body).finish({ keepActive: true });
		await n8n.restart();
		const stored = await n8n.api<{ nodes: Array<{ type: string; parameters: { path?: string } }> }>('GET', `/workflows/${prepared.workflowId}`);
		await n8n.waitForWebhook(stored.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path!);
		const second = prepared.post(body);
		const [, after] = await n8n.waitForExecutions(prepared.workflowId, 2);
		await second.finish();
		const [repeat] = jsonOf(out(expectSuccess(after), 'Send SMS'));
		expect(repeat).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: `order-e2e-c-${run}-shipped` });
		expect(await smsTo(phone)).toHaveLength(1);
	}, 300_000);
});
