/**
 * What only a real n8n shows: its Retry On Fail loop around Send / Send Bulk (no message sent
 * twice), the per-key limiter shared by concurrently executing workflows (no 429), and the
 * Account credential's JWT kept by n8n and renewed by preAuthentication after it expires.
 */
import type { WorkflowJson } from './harness';
import { credential, e2e, expectSuccess, jsonOf, node, out, waitFor, withNode, workflow } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);

const requests = async (method: string, path: string) =>
	(await emulator.requests()).filter((r) => r.method === method && r.path === path);

function countBy<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
	return counts;
}

const retrying = { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 };

describe('Retry On Fail never re-sends an accepted message', () => {
	test('Send, partial failure, stop on error: n8n retries the node 3 times, each accepted message is recorded once', async () => {
		const ref = `e2e-retry-send-${run}`;
		const wf = withNode(workflow('sms-send'), 'Send SMS', { ...retrying, onError: 'stopWorkflow' });
		await emulator.clearRequests();
		const items = [
			{ phone: '+254712000401', text: 'One', ref },
			{ phone: '+254712000402', text: 'Two', ref },
			{ phone: '+233241000403', text: 'Rejected (sender not approved for Ghana)', ref, sender: 'ACMEKE' },
			{ phone: '+254712000404', text: 'Four', ref },
		];
		const { execution } = await n8n.run(wf, { items });
		expect(execution.status).toBe('error');
		expect(execution.data?.resultData.error?.message).toMatch(/1 message\(s\) were not accepted \(items 2\); 3 were accepted/);

		const recorded = (await emulator.messages()).filter((m) => m.reference === ref);
		expect([...countBy(recorded.map((m) => m.phoneNumber)).entries()].sort()).toEqual([
			['+254712000401', 1],
			['+254712000402', 1],
			['+254712000404', 1],
		]);
		// Try 1: four POSTs; tries 2 and 3: only the rejected item again.
		const posts = await requests('POST', '/api/sms/send-api');
		expect(posts).toHaveLength(4 + 1 + 1);
		expect(posts.filter((p) => p.status === 202)).toHaveLength(3);
	});

	test('Send, partial failure, Continue On Fail: the node is not retried at all', async () => {
		const ref = `e2e-retry-cof-${run}`;
		const wf = withNode(workflow('sms-send'), 'Send SMS', { ...retrying, onError: 'continueRegularOutput' });
		await emulator.clearRequests();
		const { execution } = await n8n.run(wf, {
			items: [
				{ phone: '+233241000411', text: 'Rejected first', ref, sender: 'ACMEKE' },
				{ phone: '+254712000412', text: 'Accepted', ref },
			],
		});
		expectSuccess(execution);
		// One POST per item: no second run of the node.
		expect(await requests('POST', '/api/sms/send-api')).toHaveLength(2);
		expect((await emulator.messages()).filter((m) => m.reference === ref)).toHaveLength(1);
		const output = jsonOf(out(execution, 'Send SMS'));
		expect(output).toHaveLength(2);
		expect(output[1]).toMatchObject({ accepted: true });
		expect(output[0]).toMatchObject({ accepted: false, errorCode: 'INVALID_SENDER_ID' });
	});

	test('Send, connection dropped after the service accepted: retries report it, never send it again', async () => {
		const ref = `e2e-retry-drop-${run}`;
		const wf = withNode(workflow('sms-send'), 'Send SMS', { ...retrying, onError: 'stopWorkflow' });
		await emulator.clearRequests();
		await emulator.fault({ kind: 'drop-after-processing', method: 'POST', pathPrefix: '/api/sms/send-api', count: 1 });
		const { execution } = await n8n.run(wf, { items: [{ phone: '+254712000421', text: 'Maybe sent', ref }] });
		expect(execution.status).toBe('error');
		expect(JSON.stringify(execution.data?.resultData.error)).toMatch(/no answer from the service|may have accepted/);
		expect((await emulator.messages()).filter((m) => m.reference === ref)).toHaveLength(1);
		expect(await requests('POST', '/api/sms/send-api')).toHaveLength(1);
		await emulator.clearFaults();
	});

	test('Send Bulk, partial failure, stop on error: accepted recipients recorded once across the retries', async () => {
		const wf = withNode(workflow('sms-send-bulk'), 'Send Bulk', { ...retrying, onError: 'stopWorkflow' });
		await emulator.clearRequests();
		const items = [
			{ phone: '+254712000431', name: 'A', order: `R-${run}-1` },
			{ phone: '+233241000432', name: 'B', order: `R-${run}-2` },
			{ phone: '+254712000433', name: 'C', order: `R-${run}-3` },
		];
		const { execution } = await n8n.run(wf, { items });
		expect(execution.status).toBe('error');
		expect(execution.data?.resultData.error?.message).toMatch(/1 recipient\(s\) were not accepted \(items 1\); 2 were accepted/);
		const recorded = (await emulator.messages()).filter((m) => m.message.includes(`R-${run}-`));
		expect(recorded.map((m) => m.phoneNumber).sort()).toEqual(['+254712000431', '+254712000433']);
		// Try 1: the whole batch; tries 2 and 3: only the rejected recipient.
		expect(await requests('POST', '/api/sms/send-api')).toHaveLength(3);
	});
});

describe('Rate limit', () => {
	test('two workflows executing at once on one Free key (5 requests/s): no 429, every message accepted', async () => {
		const perWorkflow = 15;
		const wf = (tag: string) => {
			const copy = withNode(workflow('sms-send'), 'Send SMS', { credentials: { svcMessagingApi: credential('free') } });
			copy.name = `E2E · limiter ${tag}`;
			return copy;
		};
		const ref = `e2e-limit-${run}`;
		const items = (tag: string) =>
			Array.from({ length: perWorkflow }, (_, i) => ({ phone: `+25471300${tag}${String(i).padStart(3, "0")}`, text: `Limiter ${i}`, ref }));
		const a = await n8n.prepareRun(wf('A'));
		const b = await n8n.prepareRun(wf('B'));
		await emulator.clearRequests();
		const started = Date.now();
		const runs = [a.post({ items: items('1') }), b.post({ items: items('2') })];
		const [ra, rb] = await Promise.all(runs.map((r) => r.finish()));
		const elapsed = Date.now() - started;

		for (const r of [ra, rb]) {
			const output = jsonOf(out(expectSuccess(r.execution), 'Send SMS'));
			expect(output).toHaveLength(perWorkflow);
			expect(output.every((o) => o.accepted === true)).toBe(true);
		}
		// The two executions overlapped.
		const [ea, eb] = [ra.execution, rb.execution];
		expect(Date.parse(ea.startedAt)).toBeLessThan(Date.parse(eb.stoppedAt!));
		expect(Date.parse(eb.startedAt)).toBeLessThan(Date.parse(ea.stoppedAt!));

		const log = await emulator.requests();
		const posts = log.filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');
		expect(log.filter((r) => r.status === 429)).toHaveLength(0);
		expect(posts).toHaveLength(2 * perWorkflow);
		expect((await emulator.messages()).filter((m) => m.reference === ref)).toHaveLength(2 * perWorkflow);
		// 30 requests at 5/s with a bucket of 5 cannot take less than ~5 s: the limiter did pace them.
		expect(elapsed).toBeGreaterThan(4_000);
		const span = Date.parse(posts[posts.length - 1].time) - Date.parse(posts[0].time);
		expect(span).toBeGreaterThanOrEqual(4_000);
	});
});

describe('Account credential (JWT) inside n8n', () => {
	test('n8n logs in once, reuses the token, and logs in again after the token expired', async () => {
		const wf = withNode(workflow('sms-send'), 'Send SMS', {
			credentials: { svcMessagingApi: credential('starter'), svcMessagingAccountApi: credential('account') },
			parameters: { checkBalance: true },
		});
		expect(node(wf, 'Send SMS').parameters.checkBalance).toBe(true);
		const ref = `e2e-jwt-${run}`;
		const send = async (i: number) => {
			const { execution } = await n8n.run(wf, { items: [{ phone: `+25471200050${i}`, text: `JWT ${i}`, ref }] });
			expect(jsonOf(out(expectSuccess(execution), 'Send SMS'))[0]).toMatchObject({ accepted: true });
		};
		const trail = async () =>
			(await emulator.requests())
				.filter((r) => r.path === '/api/auth/login' || r.path === '/api/account/balance' || r.path === '/api/sms/send-api')
				.map((r) => `${r.method} ${r.path} ${r.status}`);

		await emulator.clearRequests();
		await send(1);
		const first = await trail();
		expect(first.slice(-2)).toEqual(['GET /api/account/balance 200', 'POST /api/sms/send-api 202']);

		await emulator.clearRequests();
		await send(2);
		// The token n8n stored with the credential is reused: no login.
		expect(await trail()).toEqual(['GET /api/account/balance 200', 'POST /api/sms/send-api 202']);

		await emulator.expireTokens();
		await emulator.clearRequests();
		await send(3);
		expect(await trail()).toEqual([
			'GET /api/account/balance 401',
			'POST /api/auth/login 200',
			'GET /api/account/balance 200',
			'POST /api/sms/send-api 202',
		]);
		expect((await emulator.messages()).filter((m) => m.reference === ref)).toHaveLength(3);
	});
});

describe("The executions list's Retry never re-sends", () => {
	/** n8n's own retry endpoint (the executions list's Retry / "Retry with currently saved workflow"). */
	async function retryExecution(id: string, loadWorkflow: boolean) {
		const answer = await n8n.rest<{ data?: { id: string }; id?: string }>('POST', `/rest/executions/${id}/retry`, { loadWorkflow });
		const retriedId = String(answer.data?.id ?? answer.id);
		return await waitFor(`retried execution ${retriedId}`, async () => {
			const execution = await n8n.execution(retriedId);
			return ['success', 'error', 'crashed'].includes(execution.status) ? execution : undefined;
		});
	}

	test('Send Bulk, 250 recipients on a Free key, the 2nd of 3 calls answers 500: Retry sends nobody twice; the saved workflow with "Resend Messages With Unknown Outcome" sends the rest once', async () => {
		const ref = `e2e-exec-retry-${run}`;
		const wf = withNode(workflow('sms-send-bulk'), 'Send Bulk', {
			onError: 'stopWorkflow',
			credentials: { svcMessagingApi: credential('free') },
			parameters: { message: 'Hello {{name}}, your order has shipped', options: { reference: ref } },
		});
		const items = Array.from({ length: 250 }, (_, i) => ({ phone: `+2547140${String(i).padStart(5, '0')}`, name: `N${i}` }));
		await emulator.clearFaults();
		// The first call passes (slow by 1 ms), the second is answered 500: its 100 recipients' fate is unknown.
		await emulator.fault({ kind: 'slow', delayMs: 1, method: 'POST', pathPrefix: '/api/sms/send-api', count: 1 });
		await emulator.fault({ kind: 'server-error', method: 'POST', pathPrefix: '/api/sms/send-api', count: 1 });
		const { execution, workflowId } = await n8n.run(wf, { items });
		expect(execution.status).toBe('error');
		expect(execution.data?.resultData.error?.message).toMatch(/100 recipient\(s\) were not accepted .*; 150 were accepted/);
		const recorded = async () => (await emulator.messages()).filter((m) => m.reference === ref).map((m) => m.phoneNumber);
		expect(await recorded()).toHaveLength(150);

		const retried = await retryExecution(execution.id, false);
		expect(retried.mode).toBe('retry');
		expect(retried.status).toBe('error');
		expect(JSON.stringify(retried.data?.resultData.error)).toMatch(/An earlier try may already have sent this message/);
		expect(await recorded()).toHaveLength(150);

		// "Retry with currently saved workflow" after turning the option on: the 100 go out, once.
		const { data: saved } = await n8n.rest<{ data: WorkflowJson }>('GET', `/rest/workflows/${workflowId}`);
		node(saved, 'Send Bulk').parameters.options = { reference: ref, resendUnknownOutcome: true };
		await n8n.updateWorkflow(workflowId, saved);
		const resent = await retryExecution(execution.id, true);
		expectSuccess(resent);
		const output = jsonOf(out(resent, 'Send Bulk'));
		expect(output.filter((o) => o.alreadySent === true)).toHaveLength(150);
		expect(output.filter((o) => o.accepted === true)).toHaveLength(250);
		const counts = countBy(await recorded());
		expect(counts.size).toBe(250);
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
	});
});
