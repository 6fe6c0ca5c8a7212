/**
 * SVC Messaging Trigger in a real n8n, fed by the emulator's real delivery-report webhooks
 * (signed with the account's webhook secret, retried on its schedule; timeScale 0.1 makes the
 * second attempt come 3 s after the first): event filter, signatures, duplicate suppression,
 * and retried deliveries producing exactly one execution.
 */
import { createHmac } from 'crypto';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

import { e2e, expectSuccess, jsonOf, node, out, waitFor, workflow } from './context';
import { http, WEBHOOK_SECRET, type Execution } from './harness';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);
let counter = 0;

interface Attempt {
	messageId: string;
	event: string;
	attempt: number;
	status: number | null;
	/** why the emulator got no answer (status null): a timeout, a refused connection */
	error: string | null;
	durationMs: number;
	signed: boolean;
	nextAttemptAt: string | null;
	url: string;
}

/** A trigger workflow (not active yet) with its own webhook id, and its production URL. */
async function createTrigger(events = ['message.delivered', 'message.failed']) {
	const wf = workflow('trigger-delivery-reports');
	const hookId = `e2e-dr-${run}-${++counter}`;
	const trigger = node(wf, 'Delivery Report');
	trigger.webhookId = hookId;
	trigger.parameters = { ...trigger.parameters, events };
	wf.name = `${wf.name} ${counter}`;
	const id = await n8n.createWorkflow(wf);
	const path = `${hookId}/svc-messaging`;
	return {
		id,
		url: `${n8n.url}/webhook/${path}`,
		activate: async () => {
			await n8n.activate(id);
			await n8n.waitForWebhook(path);
		},
	};
}

/** Sends SMS through the SMS → Send workflow with `webhookUrl` as Delivery Report URL. */
async function sendSms(phones: string[], webhookUrl: string): Promise<string[]> {
	const ref = `e2e-trigger-${run}-${++counter}`;
	const { execution } = await n8n.run(workflow('sms-send'), {
		items: phones.map((phone) => ({ phone, text: `Delivery test ${phone}`, ref, webhookUrl })),
	});
	const output = jsonOf(out(expectSuccess(execution), 'Send SMS'));
	expect(output.every((o) => o.accepted === true)).toBe(true);
	return output.map((o) => o.messageId as string);
}

async function attemptsFor(messageIds: string[]): Promise<Attempt[]> {
	const all = (await emulator.webhooks()) as Attempt[];
	return all.filter((a) => messageIds.includes(a.messageId));
}

/** Waits until every event of these messages (3 each: pending, sent, final) got its 200. */
async function waitDelivered(messageIds: string[], timeoutMs = 40_000): Promise<Attempt[]> {
	return await waitFor(
		'every delivery report to be acknowledged with 200',
		async () => {
			const attempts = await attemptsFor(messageIds);
			const done = attempts.filter((a) => a.status === 200);
			return done.length === messageIds.length * 3 ? attempts : undefined;
		},
		timeoutMs,
		200,
	);
}

/** Executions of the trigger workflow once no more are arriving. */
async function settledExecutions(workflowId: string, expected: number): Promise<Execution[]> {
	const executions = expected > 0 ? await n8n.waitForExecutions(workflowId, expected, 30_000) : [];
	await new Promise((r) => setTimeout(r, 1_000));
	const after = await n8n.executions(workflowId);
	expect(after).toHaveLength(expected);
	return executions;
}

const triggerItem = (execution: Execution) => jsonOf(out(expectSuccess(execution), 'Delivery Report'))[0];

interface Relayed {
	event: string;
	messageId: string;
	rawBody: Buffer;
	signature?: string;
	n8nStatus: number;
	n8nBody: string;
	answered: number;
}

/**
 * A pass-through between the emulator and n8n: every delivery goes to n8n unchanged, and the
 * emulator gets the status `answer` chooses (n8n's own by default), as a proxy in between would.
 */
async function startRelay(target: string, answer: (d: Omit<Relayed, 'answered'>) => number = (d) => d.n8nStatus) {
	const seen: Relayed[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			void (async () => {
				const rawBody = Buffer.concat(chunks);
				const signature = req.headers['x-svc-signature'] as string | undefined;
				const forwarded = await http('POST', target, rawBody.toString('utf8'), {
					'content-type': req.headers['content-type'] ?? 'application/json',
					...(signature ? { 'x-svc-signature': signature } : {}),
				}).catch((error) => ({ status: 599, text: String(error) }));
				let event = '';
				let messageId = '';
				try {
					const parsed = JSON.parse(rawBody.toString('utf8')) as { event?: string; data?: { messageId?: string } };
					event = parsed.event ?? '';
					messageId = parsed.data?.messageId ?? '';
				} catch {}
				const delivery = { event, messageId, rawBody, signature, n8nStatus: forwarded.status, n8nBody: forwarded.text };
				const answered = answer(delivery);
				seen.push({ ...delivery, answered });
				res.statusCode = answered;
				res.end();
			})();
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}/relay`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const sign = (body: string, secret = WEBHOOK_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('SVC Messaging Trigger with the emulator’s webhooks', () => {
	test('event filter, signed deliveries, one execution per selected event, failure reason', async () => {
		const trigger = await createTrigger(['message.delivered', 'message.failed']);
		await trigger.activate();
		const [delivered, failed, expired] = await sendSms(['+254712000601', '+254712000999', '+254712000998'], trigger.url);
		const attempts = await waitDelivered([delivered, failed, expired]);
		// Every event (pending, sent, delivered/failed/expired) was signed and acknowledged with 200. On a
		// busy machine (CI's n8n 1 row beside the editor suite) an attempt may fail without the node: the
		// emulator gives up after its 5 s, or n8n itself answers 500 (seen: n8n 1.123.81, 3.4 s, an event
		// the workflow does not select); the service delivers it again. The node's own refusals (400, 401,
		// 503) never meet a genuine signed report, and the event tried again starts one execution (below).
		expect(attempts.every((a) => a.signed)).toBe(true);
		const triedAgain = attempts.filter((a) => a.status !== 200);
		if (triedAgain.length) console.log(`attempts tried again: ${JSON.stringify(triedAgain.map(({ event, attempt, status, error, durationMs }) => ({ event, attempt, status, error, durationMs })))}`);
		expect(triedAgain.filter((a) => a.status !== null && a.status !== 500)).toEqual([]);

		const executions = await settledExecutions(trigger.id, 2);
		const items = executions.map(triggerItem);
		const byEvent = Object.fromEntries(items.map((i) => [i.event, i]));
		expect(Object.keys(byEvent).sort()).toEqual(['message.delivered', 'message.failed']);
		expect(byEvent['message.delivered']).toMatchObject({ messageId: delivered, phoneNumber: '+254712000601', status: 'DELIVERED' });
		expect(byEvent['message.delivered'].deliveredAt).toEqual(expect.any(String));
		expect(byEvent['message.failed']).toMatchObject({
			messageId: failed,
			status: 'FAILED',
			reasonCode: 'DESTINATION_NOT_REACHABLE',
		});
		expect(executions.every((e) => e.mode === 'webhook')).toBe(true);
		expect(jsonOf(out(executions[0], 'Report'))).toHaveLength(1);
		await n8n.deactivate(trigger.id);
	});

	test('first attempt fails (workflow not active yet); the emulator retries; exactly one execution', async () => {
		const trigger = await createTrigger(['message.delivered']);
		const [messageId] = await sendSms(['+254712000611'], trigger.url);
		// n8n answers 404 while nothing listens on the URL.
		await waitFor('the first (failed) attempt of message.delivered', async () => {
			const attempts = await attemptsFor([messageId]);
			const first = attempts.find((a) => a.event === 'message.delivered' && a.attempt === 1);
			return first && first.status !== 200 ? first : undefined;
		});
		await trigger.activate();
		const attempts = await waitDelivered([messageId]);
		const delivered = attempts.filter((a) => a.event === 'message.delivered').sort((a, b) => a.attempt - b.attempt);
		expect(delivered[0].status).toBe(404);
		expect(delivered[0].nextAttemptAt).not.toBeNull();
		expect(delivered.at(-1)).toMatchObject({ status: 200 });
		expect(delivered.at(-1)!.attempt).toBeGreaterThanOrEqual(2);

		const [execution] = await settledExecutions(trigger.id, 1);
		expect(triggerItem(execution)).toMatchObject({ event: 'message.delivered', messageId });
		await n8n.deactivate(trigger.id);
	});

	test('acknowledgement lost on the way back: the emulator retries, n8n suppresses the duplicate; replays and forgeries start nothing', async () => {
		const trigger = await createTrigger(['message.delivered']);
		await trigger.activate();
		// n8n gets the first message.delivered and answers 200, but the emulator is told 502 (as a
		// proxy timing out would say), so it delivers the same event again 3 s later.
		let lost = false;
		const relay = await startRelay(trigger.url, (d) => {
			if (d.event === 'message.delivered' && !lost) {
				lost = true;
				return 502;
			}
			return d.n8nStatus;
		});
		let messageId: string;
		try {
			[messageId] = await sendSms(['+254712000621'], relay.url);
			await waitDelivered([messageId]);
		} finally {
			await relay.close();
		}
		const delivered = relay.seen.filter((d) => d.event === 'message.delivered');
		expect(delivered.map((d) => [d.n8nStatus, d.answered])).toEqual([
			[200, 502],
			[200, 200],
		]);
		expect(JSON.parse(delivered[1].n8nBody)).toMatchObject({ received: true, ignored: 'duplicate' });
		// Both attempts carried the same bytes and the same valid signature.
		expect(delivered[1].rawBody.equals(delivered[0].rawBody)).toBe(true);
		expect(delivered[0].signature).toBe(sign(delivered[0].rawBody.toString('utf8')));
		const emulatorSide = (await attemptsFor([messageId])).filter((a) => a.event === 'message.delivered');
		expect(emulatorSide.map((a) => [a.attempt, a.status])).toEqual([
			[1, 502],
			[2, 200],
		]);
		const [execution] = await settledExecutions(trigger.id, 1);
		expect(triggerItem(execution)).toMatchObject({ event: 'message.delivered', messageId });

		// The same bytes delivered again after the 200: acknowledged, no execution.
		const body = delivered[0].rawBody.toString('utf8');
		const replay = await http('POST', trigger.url, body, { 'content-type': 'application/json', 'x-svc-signature': sign(body) });
		expect(replay.status).toBe(200);
		expect(replay.body).toMatchObject({ ignored: 'duplicate' });
		// A forged body (signature of the original), no signature, a wrong secret: 401.
		const forged = body.replace('DELIVERED', 'FAILED');
		expect((await http('POST', trigger.url, forged, { 'content-type': 'application/json', 'x-svc-signature': sign(body) })).status).toBe(401);
		expect((await http('POST', trigger.url, body, { 'content-type': 'application/json' })).status).toBe(401);
		expect((await http('POST', trigger.url, body, { 'content-type': 'application/json', 'x-svc-signature': sign(body, 'another-secret') })).status).toBe(401);
		// Signed but not JSON / not a delivery report: no execution. n8n's own body parser answers
		// malformed JSON sent as application/json with 422 before the node runs; other content
		// types reach the node, which answers 400.
		expect((await http('POST', trigger.url, '{not json', { 'content-type': 'application/json', 'x-svc-signature': sign('{not json') })).status).toBe(422);
		expect((await http('POST', trigger.url, '{not json', { 'content-type': 'text/plain', 'x-svc-signature': sign('{not json') })).status).toBe(400);
		const notAReport = JSON.stringify({ event: 'message.delivered', data: { nothing: true } });
		expect((await http('POST', trigger.url, notAReport, { 'content-type': 'application/json', 'x-svc-signature': sign(notAReport) })).status).toBe(400);
		await settledExecutions(trigger.id, 1);
		await n8n.deactivate(trigger.id);
	});

	test('wrong webhook secret at the service: 401 and no execution; fixed before the retry: exactly one', async () => {
		const trigger = await createTrigger(['message.delivered']);
		await trigger.activate();
		await emulator.patchAccount('acc_demo', { webhookSecret: 'not-the-secret-n8n-knows' });
		let messageId: string;
		try {
			[messageId] = await sendSms(['+254712000631'], trigger.url);
			await waitFor('a rejected (401) message.delivered', async () => {
				const attempts = await attemptsFor([messageId]);
				return attempts.find((a) => a.event === 'message.delivered' && a.status === 401);
			});
			expect(await n8n.executions(trigger.id)).toHaveLength(0);
		} finally {
			await emulator.patchAccount('acc_demo', { webhookSecret: WEBHOOK_SECRET });
		}
		const attempts = (await waitDelivered([messageId])).filter((a) => a.event === 'message.delivered');
		// 401 until the secret matched again (normally only the first attempt), then one 200.
		const statuses = attempts.sort((a, b) => a.attempt - b.attempt).map((a) => a.status);
		expect(statuses[0]).toBe(401);
		expect(statuses.at(-1)).toBe(200);
		expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
		const [execution] = await settledExecutions(trigger.id, 1);
		expect(triggerItem(execution)).toMatchObject({ event: 'message.delivered', messageId });
		await n8n.deactivate(trigger.id);
	});
});
