/**
 * Forged delivery reports at "Send and Wait for Delivery"'s resume URL. The node runs in n8n-core's
 * real contexts behind a stand-in for n8n's waiting-webhook server (waitingN8n.ts); the emulator sends
 * the messages and posts their real reports to the webhookUrl the node gave it. Forged, replayed,
 * misdirected and foreign reports change nothing; the service's real reports still resume the
 * execution and sort every message, also after the credential's API key was replaced while it waited
 * (its token and wake-up signature use a secret of the wait).
 */
import { createHmac } from 'crypto';

import type { INodeExecutionData } from 'n8n-workflow';

import { WAIT_KEY } from '../../nodes/SvcMessaging/actions/sms/deliveryOutcome';
import { SEED_ACCOUNT_IDS, SEED_KEYS } from '../emulator';
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { recordCase } from './tally';
import { useWaitingN8n, type WaitingN8n, type WaitingRun, sendAndWaitParameters } from './waitingN8n';

const SECRET = 'whsec_adversarial_0001';
/** Long enough for each case; short so that the node's own wake-up calls (at the timeout) end with the file. */
const TIMEOUT_S = 15;
// Reports retry 30 s × 0.05 = 1.5 s after a 409. Each block below sets the account up once for its cases.
const emu = useEmulator({ timeScale: 0.05, resetEachTest: false });

const parameters = sendAndWaitParameters('webhook', TIMEOUT_S);

/**
 * The block's account (its webhook secret, or none) on a fresh emulator state, and the stand-in for
 * n8n that runs the node with the credential as n8n would read it at each call; it closes after the
 * node's wake-up calls of the block's executions (at their timeout) have come.
 */
function waitingN8nWith(webhookSecret: string | undefined, apiKey: () => string = () => SEED_KEYS.business): WaitingN8n {
	beforeAll(() => {
		emu.control.reset();
		emu.control.updateAccount(SEED_ACCOUNT_IDS.demo, { webhookSecret: webhookSecret ?? null });
	});
	return useWaitingN8n(
		() => ({ parameters, credentials: apiKeyCredentials(emu.url, { apiKey: apiKey(), webhookSecret }) }),
		(TIMEOUT_S + 1) * 1000,
	);
}

async function post(url: string, body: object, headers: Record<string, string> = {}) {
	const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
	return res.status;
}

const report = (event: string, messageId: string, phoneNumber: string) => ({
	event,
	timestamp: new Date().toISOString(),
	data: { messageId, phoneNumber, status: event.split('.')[1].toUpperCase(), batchId: null, deliveredAt: new Date().toISOString() },
});
const signed = (body: object, secret = SECRET) => ({ 'x-svc-signature': `sha256=${createHmac('sha256', secret).update(JSON.stringify(body)).digest('hex')}` });

const waitingItems = (run: WaitingRun): INodeExecutionData[] => (run.entry?.data.main ?? []).flatMap((o) => o ?? []);
const messageOf = (id: string) => emu.control.messages().find((m) => m.messageId === id)!;
const webhookUrlOf = (run: WaitingRun) => String(messageOf(String(waitingItems(run)[0].json.messageId)).webhookUrl);
/** Items whose status the node holds as final although the service does not (a forged report accepted). */
const acceptedForgeries = (run: WaitingRun) =>
	waitingItems(run).filter((item) => item.json.status !== undefined && item.json.status !== 'SENT' && item.json.status !== 'PENDING' && item.json.status !== messageOf(String(item.json.messageId)).status).length;

async function finishAndCount(n8n: WaitingN8n, run: WaitingRun, inputs: number) {
	emu.control.holdCarrier(false);
	const done = await n8n.finished(run.executionId, 30_000);
	const outputs = done.outputs ?? [];
	const out = outputs.flat();
	return { done, delivered: outputs[0] ?? [], notDelivered: outputs[1] ?? [], lost: inputs - out.length };
}

/** What a user sees downstream: no item of either output carries the wait's secret or its report token. */
function leaks(outputs: INodeExecutionData[][], secret: string, token: string): number {
	const shown = JSON.stringify(outputs);
	return [secret, token].filter((value) => value !== '' && shown.includes(value)).length;
}

describe.each([
	['without a Webhook Secret', undefined],
	['with a Webhook Secret', SECRET],
])('the API key replaced while it waits, %s on the credential', (_label, webhookSecret) => {
	/** The credential's key as n8n would read it at each call: the test replaces it while the execution waits. */
	let apiKey: string = SEED_KEYS.business;
	const n8n = waitingN8nWith(webhookSecret, () => apiKey);
	const tag = webhookSecret ? 's' : 'u';

	it('the real reports still resume it and sort every message; nothing refused, nothing sent twice, no secret in the outputs', async () => {
		apiKey = SEED_KEYS.business;
		emu.control.holdCarrier(true);
		const inputs = [{ phone: '+254712330001' }, { phone: '+254712330999' }];
		const run = await n8n.start(`rotate-${tag}`, inputs);
		expect(run.state).toBe('waiting');
		// The wait's secret, kept in the waiting node's stack entry (not in its items).
		const secret = String((run.entry!.metadata as Record<string, unknown> | undefined)?.svcDeliveryWaitSecret ?? '');
		const token = new URL(webhookUrlOf(run)).searchParams.get('svcWait') ?? '';
		// The user revokes the key in the dashboard and puts a new one of the same account into the credential.
		apiKey = SEED_KEYS.enterprise;
		const { done, delivered, notDelivered, lost } = await finishAndCount(n8n, run, inputs.length);
		expect({ state: done.state, refused: done.calls.filter((call) => call.status === 401).length }).toEqual({ state: 'finished', refused: 0 });
		expect(delivered.map((i) => i.json.phoneNumber)).toEqual([inputs[0].phone]);
		expect(notDelivered.map((i) => [i.json.phoneNumber, i.json.status])).toEqual([[inputs[1].phone, 'FAILED']]);
		if (webhookSecret) expect(notDelivered[0].json.reason).toEqual(expect.objectContaining({ code: 'DESTINATION_NOT_REACHABLE' }));
		const refused = done.calls.filter((call) => call.status === 401).length;
		const messages = emu.control.messages().filter((m) => inputs.some((i) => i.phone === m.phoneNumber));
		const sentTwice = messages.length - inputs.length;
		expect({ refused, lost, sentTwice, leaked: leaks(done.outputs ?? [], secret, token) }).toEqual({ refused: 0, lost: 0, sentTwice: 0, leaked: 0 });
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		recordCase(`Send and Wait ${_label}: API key replaced while waiting, real reports resume it`, { sentTwice, lost, forgedAccepted: 0 });
	}, 60_000);

	it("with every report lost, the node's own wake-up call at the timeout still resumes it and sorts the message", async () => {
		apiKey = SEED_KEYS.business;
		const inputs = [{ phone: '+254712340001' }];
		emu.control.loseReports(inputs.map((i) => i.phone));
		const run = await n8n.start(`rotate-deadline-${tag}`, inputs);
		expect(run.state).toBe('waiting');
		apiKey = SEED_KEYS.enterprise;
		const done = await n8n.finished(run.executionId, TIMEOUT_S * 1000 + 15_000);
		emu.control.loseReports([]);
		expect(done.state).toBe('finished');
		expect(done.calls.map((call) => [call.deadline, call.status])).toEqual([[true, 200]]);
		const outputs = done.outputs ?? [];
		expect(outputs.flat().map((i) => [i.json.phoneNumber, i.json.status])).toEqual([[inputs[0].phone, 'DELIVERED']]);
		expect(outputs.flat().every((i) => i.json[WAIT_KEY] === undefined)).toBe(true);
		recordCase(`Send and Wait ${_label}: API key replaced, reports lost: its own wake-up call resumes it`, { sentTwice: 0, lost: inputs.length - outputs.flat().length, forgedAccepted: 0 });
	}, 60_000);
});

describe.each([
	['without a Webhook Secret', undefined],
	['with a Webhook Secret', SECRET],
])('%s on the credential', (_label, webhookSecret) => {
	const n8n = waitingN8nWith(webhookSecret);

	it('forged, replayed, misdirected and foreign reports change nothing; the real reports still resume and sort every message', async () => {
		emu.control.holdCarrier(true);
		const tag = webhookSecret ? 's' : 'u';
		const inputs = [{ phone: '+254712310001' }, { phone: '+254712310999' }];
		const run = await n8n.start(`forge-${tag}`, inputs);
		const other = await n8n.start(`other-${tag}`, [{ phone: '+254712310002' }]);
		expect(run.state).toBe('waiting');
		const [kept, failing] = waitingItems(run).map((i) => ({ id: String(i.json.messageId), phone: String(i.json.phoneNumber) }));
		const realUrl = webhookUrlOf(run);
		expect(realUrl).toMatch(new RegExp(`/webhook-waiting/forge-${tag}/svc-delivery-report\\?svcWait=[0-9a-f]{64}$`));
		const bareUrl = realUrl.split('?')[0];
		const otherToken = new URL(webhookUrlOf(other)).search;

		const forgedDelivered = report('message.delivered', failing.id, failing.phone);
		// One body, signed as sent: a report built twice could carry two timestamps a millisecond apart.
		const notOurs = report('message.delivered', 'msg_not_ours', failing.phone);
		const answers = {
			// Execution ids are guessable; the token is not.
			unsigned: await post(bareUrl, forgedDelivered),
			signedNoToken: await post(bareUrl, forgedDelivered, signed(forgedDelivered)),
			otherExecutionsToken: await post(`${bareUrl}${otherToken}`, forgedDelivered, signed(forgedDelivered)),
			wrongToken: await post(`${bareUrl}?svcWait=${'0'.repeat(64)}`, forgedDelivered, signed(forgedDelivered)),
			// The right URL (e.g. read from a log), but a message this execution did not send.
			notOurMessage: await post(realUrl, notOurs, signed(notOurs)),
			// The right URL and a forged status: without a secret it may only wake the node for a lookup.
			forgedStatus: await post(realUrl, forgedDelivered, webhookSecret ? signed(forgedDelivered, 'whsec_guess') : {}),
		};
		expect(answers).toEqual({
			unsigned: 401,
			signedNoToken: 401,
			otherExecutionsToken: 401,
			wrongToken: 401,
			notOurMessage: 200,
			forgedStatus: webhookSecret ? 401 : 200,
		});
		await n8n.finished(run.executionId, 2_000); // let a woken node's lookup finish
		expect(run.state).toBe('waiting');
		let forgedAccepted = acceptedForgeries(run) + (run.state === 'waiting' ? 0 : 1);
		expect(waitingItems(run).every((i) => i.json.status === 'SENT' || i.json.status === 'PENDING')).toBe(true);

		const { done, delivered, notDelivered, lost } = await finishAndCount(n8n, run, inputs.length);
		expect(done.state).toBe('finished');
		expect(delivered.map((i) => [i.json.messageId, i.json.status])).toEqual([[kept.id, 'DELIVERED']]);
		expect(notDelivered.map((i) => [i.json.messageId, i.json.status])).toEqual([[failing.id, 'FAILED']]);
		expect([...delivered, ...notDelivered].every((i) => i.json[WAIT_KEY] === undefined && i.json.timedOut === undefined)).toBe(true);
		if (webhookSecret) expect(notDelivered[0].json.reason).toEqual(expect.objectContaining({ code: 'DESTINATION_NOT_REACHABLE' }));

		// A replay of the real, signed report after the execution finished: n8n's 409, nothing changes.
		const replay = report('message.delivered', kept.id, kept.phone);
		expect(await post(realUrl, replay, webhookSecret ? signed(replay) : {})).toBe(409);
		expect(done.outputs!.flat()).toHaveLength(2);
		forgedAccepted += n8n.runs.get(run.executionId)!.resumes > 3 ? 1 : 0;

		const messages = emu.control.messages().filter((m) => inputs.some((i) => i.phone === m.phoneNumber));
		const sentTwice = messages.length - new Set(messages.map((m) => m.phoneNumber)).size;
		expect(sentTwice).toBe(0);
		expect(lost).toBe(0);
		expect(forgedAccepted).toBe(0);
		recordCase(`Send and Wait ${_label}: forged, replayed, foreign reports change nothing; real reports resume`, { sentTwice, lost, forgedAccepted });
	}, 60_000);

	it('a replayed report at a later waiting state (the message already final) changes nothing', async () => {
		emu.control.holdCarrier(true);
		const tag = webhookSecret ? 's' : 'u';
		const inputs = [{ phone: '+254712320001' }, { phone: '+254712320002' }];
		const run = await n8n.start(`replay-${tag}`, inputs);
		const [first] = waitingItems(run).map((i) => ({ id: String(i.json.messageId), phone: String(i.json.phoneNumber) }));
		const url = webhookUrlOf(run);
		// The first message becomes final at the service; its real report resumes a round, the other still waits.
		const real = report('message.delivered', first.id, first.phone);
		emu.control.holdCarrier(false);
		await n8n.finished(run.executionId, 500);
		emu.control.holdCarrier(true);
		// Its report, replayed at whatever state the execution is in now: 200 (final already), 409 or nothing to resume.
		const before = JSON.stringify(waitingItems(run).map((i) => i.json.status));
		const status = await post(url, real, webhookSecret ? signed(real) : {});
		expect([200, 409]).toContain(status);
		const after = JSON.stringify(waitingItems(run).map((i) => i.json.status));
		const forgedAccepted = run.state === 'waiting' && before !== after ? 1 : 0;
		const { delivered, notDelivered, lost } = await finishAndCount(n8n, run, inputs.length);
		expect(delivered).toHaveLength(2);
		expect(notDelivered).toHaveLength(0);
		const messages = emu.control.messages().filter((m) => inputs.some((i) => i.phone === m.phoneNumber));
		const sentTwice = messages.length - inputs.length;
		expect(sentTwice).toBe(0);
		expect(lost).toBe(0);
		expect(forgedAccepted).toBe(0);
		recordCase(`Send and Wait ${_label}: a replayed report changes nothing`, { sentTwice, lost, forgedAccepted });
	}, 60_000);
});
