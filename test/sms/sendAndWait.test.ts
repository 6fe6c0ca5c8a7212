/**
 * SMS → Send and Wait for Delivery in n8n-core's real contexts against the emulator: polling, the
 * timeout bounds, and the resume webhook's answers to reports (the whole wait-and-resume cycle in a
 * real n8n is test/e2e/sendAndWait.e2e.test.ts).
 */
import { createHmac } from 'node:crypto';

import type { IExecuteData, INodeExecutionData } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { afterFailedLookup, splitOutcomes, WAIT_KEY, wakeAtOf } from '../../nodes/SvcMessaging/actions/sms/deliveryOutcome';
import { deadlineSignature, keepWaitSecret, newWaitSecret, reportToken } from '../../nodes/SvcMessaging/actions/sms/deliveryWebhookWait';
import { description } from '../../nodes/SvcMessaging/actions/sms/sendAndWait.operation';
import { DELIVERY_WAIT } from '../../nodes/SvcMessaging/actions/sms/deliveryWait';
import { callWebhook, executeNode } from '../helpers/n8n';
import { apiKeyCredentials, noSender, SEED_KEYS, sent } from './fixtures';

const emu = useEmulator();

const parameters = (extra: Record<string, unknown> = {}) => ({
	resource: 'sms',
	operation: 'sendAndWaitForDelivery',
	phoneNumber: '={{ $json.phone }}',
	message: 'Your code is 123456',
	senderId: noSender,
	waitMode: 'polling',
	timeout: 30,
	options: { pollInterval: 1 },
	...extra,
});

test('the form\'s defaults are the ones of DELIVERY_WAIT (README → Send and Wait for Delivery)', () => {
	const fields = Object.fromEntries(description.map((p) => [p.name, p]));
	expect(fields.timeout.default).toBe(DELIVERY_WAIT.timeoutSeconds.default);
	const pollInterval = (fields.options.options as Array<{ name: string; default: unknown }>).find((o) => o.name === 'pollInterval');
	expect(pollInterval?.default).toBe(DELIVERY_WAIT.pollIntervalSeconds.default);
});

describe('polling', () => {
	test('each item ends on "Delivered" or "Not Delivered", paired with its input; each message sent once', async () => {
		const credentials = apiKeyCredentials(emu.url);
		const [delivered, notDelivered] = await executeNode({ parameters: parameters(), credentials }, [
			{ phone: '+254712345678' },
			{ phone: '+254712345999' },
			{ phone: '+254712345998' },
			{ phone: '+254712345679' },
		]);
		expect(delivered.map((i) => [i.json.phoneNumber, i.json.status, i.json.delivered, i.pairedItem])).toEqual([
			['+254712345678', 'DELIVERED', true, { item: 0 }],
			['+254712345679', 'DELIVERED', true, { item: 3 }],
		]);
		expect(notDelivered.map((i) => [i.json.phoneNumber, i.json.status, i.json.delivered, i.pairedItem])).toEqual([
			['+254712345999', 'FAILED', false, { item: 1 }],
			['+254712345998', 'EXPIRED', false, { item: 2 }],
		]);
		for (const item of [...delivered, ...notDelivered]) {
			expect(item.json[WAIT_KEY]).toBeUndefined();
			expect(item.json.timedOut).toBeUndefined();
			expect(item.json.messageId).toEqual(expect.any(String));
		}
		expect(sent(emu)).toHaveLength(4);
		expect(emu.control.messages().every((m) => m.webhookUrl === null)).toBe(true);
		const lookups = emu.control.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/sms/messages/'));
		expect(lookups.length).toBeGreaterThanOrEqual(4);
	});

	test('a message not final at the timeout → "Not Delivered" with timedOut', async () => {
		emu.control.holdCarrier(true);
		const [delivered, notDelivered] = await executeNode(
			{ parameters: parameters({ timeout: 5 }), credentials: apiKeyCredentials(emu.url) },
			[{ phone: '+254712345678' }],
		);
		expect(delivered).toEqual([]);
		expect(notDelivered[0].json).toMatchObject({ delivered: false, timedOut: true, accepted: true, status: 'SENT' });
		expect(notDelivered[0].json.waitedSeconds).toBeGreaterThanOrEqual(4.5);
		expect(sent(emu)).toHaveLength(1);
	});

	test('a timeout out of bounds fails before anything is sent, naming the field and the rule', async () => {
		const credentials = apiKeyCredentials(emu.url);
		await expect(executeNode({ parameters: parameters({ timeout: 3600 }), credentials }, [{ phone: '+254712345678' }])).rejects.toThrow(
			'"Timeout (Seconds)" must be between 5 and 900 with Polling (got 3600)',
		);
		await expect(
			executeNode({ parameters: parameters({ waitMode: 'webhook', timeout: 2 }), credentials }, [{ phone: '+254712345678' }]),
		).rejects.toThrow('"Timeout (Seconds)" must be between 5 and 86400 with Delivery Report (got 2)');
		// Node version 2 names the item first, as every refusal does.
		await expect(executeNode({ parameters: parameters({ timeout: 3600 }), credentials, typeVersion: 2 }, [{ phone: '+254712345678' }])).rejects.toThrow(
			/^Item 0: "Timeout \(Seconds\)" must be between 5 and 900 with Polling \(got 3600\)$/,
		);
		expect(sent(emu)).toHaveLength(0);
	});

	test('an invalid phone number fails before anything is sent', async () => {
		await expect(
			executeNode({ parameters: parameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: '+254712345678' }, { phone: 'nope' }]),
		).rejects.toThrow(/Phone Number/);
		expect(sent(emu)).toHaveLength(0);
	});
});

describe('the resume webhook (delivery reports at a waiting execution)', () => {
	const SECRET = 'whsec_unit_0001';
	const until = new Date(Date.now() + 60_000).toISOString();
	const wait = { mode: 'webhook', since: new Date().toISOString(), until };

	/** A waiting execution's entry as the node leaves it: two messages, one of them delivered already. */
	function waitingEntry(round?: number): IExecuteData {
		const item = (messageId: string, status: string, index: number): INodeExecutionData => ({
			json: { accepted: true, messageId, status, phoneNumber: `+25471234567${index}`, [WAIT_KEY]: { ...wait, round } },
			pairedItem: { item: index },
		});
		const [delivered, notDelivered] = splitOutcomes([item('msg_a', 'DELIVERED', 0), item('msg_b', 'SENT', 1)], false);
		return { node: { disabled: true } as IExecuteData['node'], data: { main: [delivered, notDelivered] }, source: null };
	}

	async function post(
		body: unknown,
		headers: Record<string, string> = {},
		executionId = `exec-${Math.random()}`,
		round?: number,
		{
			token = reportToken(SEED_KEYS.business, executionId),
			secret = SECRET,
			waitSecret,
			apiKey = SEED_KEYS.business,
		}: { token?: string; secret?: string; waitSecret?: string; apiKey?: string } = {},
	) {
		const rawBody = Buffer.from(JSON.stringify(body));
		const signed = { 'x-svc-signature': `sha256=${createHmac('sha256', SECRET).update(rawBody).digest('hex')}`, ...headers };
		const entry = waitingEntry(round);
		if (waitSecret) keepWaitSecret(entry, waitSecret);
		const call = await callWebhook(
			{ parameters: parameters({ waitMode: 'webhook' }), credentials: apiKeyCredentials(emu.url, { apiKey, webhookSecret: secret }) },
			{ headers: signed, body, rawBody, query: { svcWait: token } },
			{},
			{ executionId, entry },
		);
		return { ...call, entry };
	}

	const reportOf = (event: string, messageId = 'msg_b', extra: Record<string, unknown> = {}) => ({
		event,
		timestamp: new Date().toISOString(),
		data: { messageId, phoneNumber: '+254712345671', status: event.split('.')[1].toUpperCase(), ...extra },
	});

	test('a final report of a waiting message resumes the node with it (reason included)', async () => {
		const reason = { code: 'DESTINATION_NOT_REACHABLE', message: 'unreachable' };
		const { result, entry } = await post(reportOf('message.failed', 'msg_b', { reason }));
		expect(entry.node.disabled).toBe(false);
		const items = result.workflowData![0];
		expect(items.map((i) => [i.json.messageId, i.json.status, i.pairedItem])).toEqual([
			['msg_a', 'DELIVERED', { item: 0 }],
			['msg_b', 'FAILED', { item: 1 }],
		]);
		expect(items[1].json.reason).toEqual(reason);
	});

	test.each([
		['a forged signature', 401, reportOf('message.delivered'), { 'x-svc-signature': `sha256=${'0'.repeat(64)}` }],
		['no signature', 401, reportOf('message.delivered'), { 'x-svc-signature': '' }],
		['a pending report', 200, reportOf('message.pending'), {}],
		['a sent report', 200, reportOf('message.sent'), {}],
		["another message's report", 200, reportOf('message.delivered', 'msg_other'), {}],
		['a repeat for a message already final', 200, reportOf('message.delivered', 'msg_a'), {}],
	])('%s: answered %d, the execution keeps waiting', async (_what, status, body, headers) => {
		const { result, response, entry } = await post(body, headers);
		expect(result.workflowData).toBeUndefined();
		expect(entry.node.disabled).toBe(true);
		if (status === 200) {
			// n8n answers 200 with this body when a webhook starts nothing.
			expect(result.webhookResponse).toEqual({ received: true, ignored: expect.any(String) });
		} else {
			expect(response.statusCode).toBe(status);
		}
	});

	test.each([
		['no token', ''],
		["another execution's token", reportToken(SEED_KEYS.business, 'exec-other')],
		['a token made with another key', reportToken(SEED_KEYS.free, 'exec-token')],
	])('%s in the URL: 401 before anything else, even for a signed report or the timeout call', async (_what, token) => {
		const report = await post(reportOf('message.delivered'), {}, 'exec-token', undefined, { token });
		const deadline = await post({ event: 'wait.timeout' }, { 'x-svc-wait-deadline': deadlineSignature(SEED_KEYS.business, 'exec-token', until) }, 'exec-token', undefined, { token });
		for (const { response, result, entry } of [report, deadline]) {
			expect(response.statusCode).toBe(401);
			expect(result.workflowData).toBeUndefined();
			expect(entry.node.disabled).toBe(true);
		}
	});

	test('without a Webhook Secret, a final report only wakes the node: the statuses are left for its lookups', async () => {
		const { result, entry } = await post(reportOf('message.delivered'), { 'x-svc-signature': '' }, undefined, undefined, { secret: '' });
		expect(entry.node.disabled).toBe(false);
		expect(result.workflowData![0].map((i) => [i.json.messageId, i.json.status])).toEqual([
			['msg_a', 'DELIVERED'],
			['msg_b', 'SENT'],
		]);
	});

	test('two final reports at once: the second gets a 409 (the service delivers it again later)', async () => {
		const first = await post(reportOf('message.delivered'), {}, 'exec-twice');
		const second = await post(reportOf('message.delivered'), {}, 'exec-twice');
		expect(first.result.workflowData).toBeDefined();
		expect(second.response.statusCode).toBe(409);
		expect(second.result.workflowData).toBeUndefined();
	});

	test('each waiting state is resumed once: a late report of the same state gets a 409, the next state (round) resumes', async () => {
		// n8n hands every report the execution as it read it: a report that read it before another
		// report's resume sees the same waiting state (round 1), even after the resumed node started.
		const first = await post(reportOf('message.delivered'), {}, 'exec-rounds', 1);
		const stale = await post(reportOf('message.expired'), {}, 'exec-rounds', 1);
		const nextRound = await post(reportOf('message.expired'), {}, 'exec-rounds', 2);
		expect(first.result.workflowData).toBeDefined();
		expect(stale.response.statusCode).toBe(409);
		expect(stale.entry.node.disabled).toBe(true);
		expect(nextRound.result.workflowData![0].map((i) => i.json.status)).toEqual(['DELIVERED', 'EXPIRED']);
	});

	test("the wait's own secret keys the token and the wake-up signature, whatever key the credential holds now", async () => {
		const executionId = 'exec-wait-secret';
		const waitSecret = newWaitSecret();
		const rotated = { waitSecret, apiKey: SEED_KEYS.enterprise, token: reportToken(waitSecret, executionId) };
		const report = await post(reportOf('message.delivered'), {}, executionId, 1, rotated);
		expect(report.result.workflowData![0].map((i) => i.json.status)).toEqual(['DELIVERED', 'DELIVERED']);
		const deadline = await post({ event: 'wait.timeout' }, { 'x-svc-wait-deadline': deadlineSignature(waitSecret, executionId, until) }, executionId, 2, rotated);
		expect(deadline.result.workflowData![0]).toHaveLength(2);
		// Tokens made with an API key, the old or the current one, do not open a wait that has its own secret.
		for (const apiKey of [SEED_KEYS.business, SEED_KEYS.enterprise]) {
			const withKey = await post(reportOf('message.delivered'), {}, executionId, 3, { waitSecret, apiKey, token: reportToken(apiKey, executionId) });
			const keyDeadline = await post({ event: 'wait.timeout' }, { 'x-svc-wait-deadline': deadlineSignature(apiKey, executionId, until) }, executionId, 3, {
				...rotated,
				apiKey,
			});
			expect([withKey.response.statusCode, keyDeadline.response.statusCode]).toEqual([401, 401]);
			expect(withKey.entry.node.disabled && keyDeadline.entry.node.disabled).toBe(true);
		}
	});

	test('an execution put to wait before the wait secret existed (its entry has none) still resumes with the API-key token', async () => {
		const legacy = await post(reportOf('message.delivered'), {}, 'exec-legacy', 1);
		expect(legacy.result.workflowData).toBeDefined();
	});

	test("the node's own call at the timeout resumes it; a wrong signature is refused", async () => {
		const executionId = 'exec-deadline';
		const wrong = await post({ event: 'wait.timeout' }, { 'x-svc-wait-deadline': '0'.repeat(64) }, executionId);
		expect(wrong.response.statusCode).toBe(401);
		const right = await post({ event: 'wait.timeout' }, { 'x-svc-wait-deadline': deadlineSignature(SEED_KEYS.business, executionId, until) }, executionId);
		expect(right.result.workflowData![0]).toHaveLength(2);
		expect(right.entry.node.disabled).toBe(false);
	});
});

describe('Delivery Report mode: a FAILED lookup waits a while for the report that carries the reason', () => {
	const grace = DELIVERY_WAIT.failureReasonGraceMs;
	const until = '2026-11-23T12:10:00.000Z';
	const now = Date.parse('2026-11-23T12:00:00.000Z');
	const waiting = (marker: Record<string, unknown> = {}): INodeExecutionData => ({
		json: { accepted: true, messageId: 'msg_f', status: 'SENT', [WAIT_KEY]: { mode: 'webhook', since: '2026-11-23T11:59:00.000Z', until, ...marker } },
	});
	const lookup = { messageId: 'msg_f', status: 'FAILED' };

	test('the first FAILED lookup keeps the message waiting and notes when; the node wakes itself when the grace ends', () => {
		const first = afterFailedLookup(waiting(), lookup, grace, now);
		expect(first.json.status).toBe('SENT');
		expect((first.json[WAIT_KEY] as { failedSeenAt: string }).failedSeenAt).toBe(new Date(now).toISOString());
		expect(wakeAtOf([first], until, grace)).toBe(new Date(now + grace).toISOString());
		expect(wakeAtOf([waiting()], until, grace)).toBe(until);
	});

	test('before the grace ends it keeps waiting; after, it is FAILED without a reason', () => {
		const seen = waiting({ failedSeenAt: new Date(now).toISOString() });
		expect(afterFailedLookup(seen, lookup, grace, now + grace / 2).json.status).toBe('SENT');
		const final = afterFailedLookup(seen, lookup, grace, now + grace);
		expect(final.json).toMatchObject({ status: 'FAILED' });
		expect(final.json.reason).toBeUndefined();
		expect(splitOutcomes([final], true)[1][0].json).toMatchObject({ delivered: false, status: 'FAILED' });
	});

	test('a grace end after the timeout: the node wakes at the timeout', () => {
		const late = waiting({ failedSeenAt: new Date(Date.parse(until) - 1000).toISOString() });
		expect(wakeAtOf([late], until, grace)).toBe(until);
	});
});
