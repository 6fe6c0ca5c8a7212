/**
 * Options → Idempotency Key in a real n8n (2.41.1; 1.123.81 with test:e2e:n8n1), the sms-send
 * workflow's Send SMS node keyed by `order-{{ $json.ref }}-shipped`: the same workflow executed
 * twice, twice at the same instant, and another workflow with the same key, each counted at the
 * emulator: one SMS per key. n8n here is one process without the shared Redis: the keys are claimed
 * in its process (every workflow) and kept in its processed-data table for the node (the same
 * workflow after n8n restarted: restart.e2e.test.ts, on the n8n it restarts).
 */
import { e2e, expectSuccess, jsonOf, keyedSmsSend as keyed, out } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);
// This run's messages to the number: other files share the emulator, and may text the same number.
const smsTo = async (phone: string) => (await emulator.messages()).filter((m) => m.phoneNumber === phone && String(m.reference).endsWith(`-${run}`));

describe('Idempotency Key in real n8n', () => {
	test('two executions of the workflow with the same key: 1 SMS; the second returns the first messageId and execution', async () => {
		const phone = '+254712004111';
		const prepared = await n8n.prepareRun(keyed());
		const body = { items: [{ phone, text: 'Your order shipped', ref: `e2e-a-${run}` }] };
		await prepared.post(body).finish({ keepActive: true });
		await prepared.post(body).finish();
		const [first, second] = await n8n.waitForExecutions(prepared.workflowId, 2);
		const [sent] = jsonOf(out(expectSuccess(first), 'Send SMS'));
		const [repeat] = jsonOf(out(expectSuccess(second), 'Send SMS'));
		expect(sent).toMatchObject({ accepted: true });
		expect(sent.alreadySent).toBeUndefined();
		expect(repeat).toMatchObject({ accepted: true, alreadySent: true, idempotencyKey: `order-e2e-a-${run}-shipped`, messageId: sent.messageId });
		expect(repeat.sentIn).toMatchObject({ executionId: String(first.id), workflowId: prepared.workflowId });
		expect(await smsTo(phone)).toHaveLength(1);
	});

	test('two executions at the same instant, then another workflow, with one key: 1 SMS', async () => {
		const phone = '+254712004112';
		// Each send answers late, so that both executions are under way together.
		await emulator.fault({ kind: 'slow', delayMs: 500, count: 2, pathPrefix: '/api/sms/send-api' });
		const prepared = await n8n.prepareRun(keyed());
		const body = { items: [{ phone, text: 'Your order shipped', ref: `e2e-b-${run}` }] };
		const a = prepared.post(body);
		const b = prepared.post(body);
		await Promise.all([a.finish({ keepActive: true }), b.finish({ keepActive: true })]);
		const both = await n8n.waitForExecutions(prepared.workflowId, 2);
		await n8n.deactivate(prepared.workflowId);
		const outs = both.map((e) => jsonOf(out(expectSuccess(e), 'Send SMS'))[0]);
		expect(outs.filter((o) => o.alreadySent === true)).toHaveLength(1);
		expect(outs[0].messageId).toBe(outs[1].messageId);
		const { execution } = await n8n.run(keyed(), body);
		expect(jsonOf(out(expectSuccess(execution), 'Send SMS'))[0]).toMatchObject({ alreadySent: true, messageId: outs[0].messageId });
		expect(await smsTo(phone)).toHaveLength(1);
		await emulator.control('DELETE', '/faults');
	});
});
