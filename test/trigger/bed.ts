/**
 * The trigger suites' shared bed: the trigger's webhook handler, run in n8n-core's real WebhookContext,
 * fed with the exact requests (headers and raw bytes) the emulator of the service POSTs for real SMS
 * sends. `useTriggerBed()` starts the emulator and a receiver standing in for n8n's webhook URL, sends
 * one SMS to each outcome's number and waits for their reports; the helpers read what arrived.
 */
import { createHmac } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { SvcMessagingTrigger } from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';
import { SEED_ACCOUNT_IDS, SEED_KEYS, type RunningEmulator } from '../emulator';
import { apiKeyCredentials, type ApiKeyOptions, type TestCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { live, runningOnly } from '../helpers/live';
import { callWebhook, registerNodeType, type NodeSetup } from '../helpers/n8n';
import { asWebhookRequest, n8nAnswer, startReceiver, type CapturedDelivery } from './harness';

registerNodeType('svcMessagingTrigger', new SvcMessagingTrigger());

const TYPE = 'n8n-nodes-svc-messaging.svcMessagingTrigger';
export const ACCOUNT = SEED_ACCOUNT_IDS.demo;
// the demo account's Starter key: 20 requests/s leaves room for the suite's six sends
const API_KEY = SEED_KEYS.starter;
export const SECRET = 'whsec_trigger_suite_5b1e0c';
export const ALL_EVENTS = ['message.pending', 'message.sent', 'message.delivered', 'message.failed', 'message.expired'];
/** n8n keeps a node's static data under `node:<node name>`; the helper names the node "SVC Messaging". */
export const LEDGER = 'node:SVC Messaging';

export type Outcome = 'delivered' | 'unreachable' | 'expired' | 'blacklisted';
export const NUMBERS: Record<Outcome, string> = {
	delivered: '+254712345678',
	unreachable: '+254712345999',
	expired: '+254712345998',
	blacklisted: '+254712345997',
};

export interface SentSms {
	messageId: string;
	phoneNumber: string;
	senderId: string;
	creditsUsed: number;
	reference: string;
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let emulator: RunningEmulator;
let running: Receiver | undefined;
/** The SMS the bed sent, one per outcome. */
export const sent = {} as Record<Outcome, SentSms>;

/** The receiver of the running bed. */
export const receiver = live(runningOnly('useTriggerBed()', () => running));

/** Not reset between tests: every test reads the reports of the SMS sent once in beforeAll. */
export function useTriggerBed(): RunningEmulator {
	emulator = useEmulator({ resetEachTest: false });
	beforeAll(async () => {
		running = await startReceiver();
		emulator.control.updateAccount(ACCOUNT, { webhookUrl: running.url, webhookSecret: SECRET });
		for (const outcome of Object.keys(NUMBERS) as Outcome[]) {
			sent[outcome] = await sendSms(NUMBERS[outcome], `order-${outcome}`);
		}
		// pending, sent and a final event for each of the four messages
		await running.waitFor((d) => d.attempt === 1, 12);
	});
	afterAll(async () => {
		await running?.close();
		running = undefined;
	});
	return emulator;
}

export async function sendSms(phoneNumber: string, reference: string): Promise<SentSms> {
	const res = await request(`${emulator.url}/api/sms/send-api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
		body: JSON.stringify({ phoneNumber, message: 'Your order has shipped', reference }),
	});
	const body = (await res.body.json()) as { data: SentSms };
	expect(res.statusCode).toBe(202);
	return { ...body.data, reference };
}

export async function lookup(messageId: string) {
	const res = await request(`${emulator.url}/api/sms/messages/${messageId}`, { headers: { 'x-api-key': API_KEY } });
	expect(res.statusCode).toBe(200);
	return ((await res.body.json()) as { data: { deliveredAt?: string | null; status: string } }).data;
}

/** The first delivery of `event` for the message sent to the `outcome` number. */
export function delivery(outcome: Outcome, event: string): CapturedDelivery {
	const found = receiver.deliveries.find(
		(d) => d.messageId === sent[outcome].messageId && d.event === event && d.attempt === 1,
	);
	if (!found) throw new Error(`no ${event} delivery for ${outcome}`);
	return found;
}

export function withSecret(secret = SECRET, options: Omit<ApiKeyOptions, 'plan' | 'apiKey' | 'webhookSecret'> = {}): TestCredentials {
	return apiKeyCredentials(emulator.url, { plan: 'starter', apiKey: API_KEY, webhookSecret: secret, ...options });
}

export interface TriggerRun {
	parameters?: IDataObject;
	credentials?: TestCredentials;
	staticData?: IDataObject;
}

export async function trigger(req: Pick<CapturedDelivery, 'headers' | 'rawBody'>, run: TriggerRun = {}) {
	const setup: NodeSetup = {
		type: TYPE,
		parameters: run.parameters ?? {},
		credentials: 'credentials' in run ? run.credentials : withSecret(),
	};
	const call = await callWebhook(setup, asWebhookRequest(req), run.staticData ?? {});
	return { ...n8nAnswer(call), staticData: call.staticData };
}

/** A body the emulator never sends (malformed, reshaped), signed as the emulator signs. */
export function signed(base: CapturedDelivery, rawBody: string | Buffer, secret = SECRET) {
	const bytes = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
	const signature = 'sha256=' + createHmac('sha256', secret).update(bytes).digest('hex');
	return { headers: { ...base.headers, 'x-svc-signature': signature }, rawBody: bytes };
}

export function withoutSignature(d: CapturedDelivery) {
	const headers = { ...d.headers };
	delete headers['x-svc-signature'];
	return { headers, rawBody: d.rawBody };
}

export function payloadOf(d: Pick<CapturedDelivery, 'rawBody'>): { event: string; timestamp: string; data: IDataObject } {
	return JSON.parse(d.rawBody.toString('utf8'));
}
