/**
 * Never twice where most users run: one n8n with SQLite and no Redis, of this file's own, restarted
 * twice (the suite's shared n8n stays up for the other files).
 * - n8n is killed (SIGKILL, as an out-of-memory kill does) in the middle of a 300-item Send, started
 *   again on the same folder, and the crashed execution is retried as a user does (Executions →
 *   Retry). The send ledger's record in n8n's own database (its processed-data table) must make the
 *   Retry send no number a second SMS and leave no number silently without one.
 * - An Idempotency Key sent before n8n is stopped and started again is still known (the node's
 *   processed-data row): the same workflow sends no second SMS.
 * Counted at the emulator.
 */
import { sendWindow } from '../../nodes/SvcMessaging/sending/window';
import { PLANS } from '../../nodes/SvcMessaging/transport/service';
import { EmulatorClient, emulatorCredentials, N8n, waitFor, type Execution } from './harness';
import { expectSuccess, jsonOf, keyedSmsSend, out, pairedIndex, withNode, workflow } from './context';

const emulator = new EmulatorClient(process.env.E2E_EMULATOR_URL!);
const ITEMS = 300;
const ref = `e2e-restart-${Date.now().toString(36)}`;
const items = Array.from({ length: ITEMS }, (_, i) => ({ phone: `+2547150${String(i).padStart(5, '0')}`, text: `Order ${i} shipped`, ref }));
let n8n: N8n;

beforeAll(async () => {
	n8n = await N8n.start({ credentials: emulatorCredentials(emulator.url) });
}, 240_000);
afterAll(async () => {
	await n8n?.stop();
});

const ours = async () => (await emulator.messages()).filter((m) => m.reference === ref);

test('SIGKILL mid-send, restart, Retry: 0 numbers with two SMS, 0 numbers left without one unreported', async () => {
	// Stop on error, as a user's workflow does by default: the Retry's outcome is then in its output.
	const wf = withNode(workflow('sms-send'), 'Send SMS', { onError: 'continueRegularOutput' });
	const prepared = await n8n.prepareRun(wf);
	// Its webhook call is cut by the kill: nothing to wait for.
	void prepared.post({ items }).finish().catch(() => undefined);
	// Starter sends 20 a second: kill n8n once about a third has gone out.
	await waitFor('100 messages at the emulator', async () => ((await ours()).length >= 100 ? true : undefined), 60_000, 50);
	await n8n.kill();
	const sentBeforeKill = (await ours()).length;

	await n8n.restart();
	const crashed = await waitFor(
		'the killed execution marked crashed',
		async () => (await n8n.executions(prepared.workflowId, false)).find((e) => e.status === 'crashed' || e.status === 'error'),
		60_000,
		250,
	);
	await n8n.rest('POST', `/rest/executions/${crashed.id}/retry`, { loadWorkflow: false });
	const retried = await waitFor(
		'the retry to finish',
		async () => (await n8n.executions(prepared.workflowId, true)).find((e: Execution) => e.id !== crashed.id && e.status !== 'running' && e.status !== 'new' && e.stoppedAt),
		180_000,
		500,
	);

	const output = out(retried, 'Send SMS');
	const messages = await ours();
	const perNumber = new Map<string, number>();
	for (const m of messages) perNumber.set(m.phoneNumber, (perNumber.get(m.phoneNumber) ?? 0) + 1);
	const twice = [...perNumber.values()].filter((n) => n > 1).length;
	const without = items.filter((i) => !perNumber.has(i.phone)).length;
	const unknownItems = new Set(output.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME').map((i) => pairedIndex(i)));
	const unknown = unknownItems.size;
	// Lost: a number with no SMS that the Retry did not report as of unknown outcome.
	const lost = items.filter((i, index) => !perNumber.has(i.phone) && !unknownItems.has(index)).length;
	const alreadySent = output.filter((i) => i.json.alreadySent === true).length;
	console.log(
		`n8n ${n8n.info.version} killed after ${sentBeforeKill} of ${ITEMS} SMS, restarted, Retry: ${alreadySent} reported sent before, ` +
			`${unknown} refused as unknown outcome, ${messages.length - sentBeforeKill} sent by the Retry; ${twice} numbers with two SMS, ${without} without one, ${lost} of them unreported`,
	);
	expect(output).toHaveLength(ITEMS);
	expect(twice).toBe(0);
	// A number without an SMS is one the Retry reported as of unknown outcome (it was under way at the kill).
	expect(lost).toBe(0);
	// Messages under way at the kill (at most one window of the plan's rate) and those accepted just
	// before it whose accepted mark the next group write would have taken (well under another window).
	expect(unknown).toBeLessThanOrEqual(2 * sendWindow(PLANS.starter));
	expect(alreadySent).toBeGreaterThanOrEqual(sentBeforeKill - unknown);
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
