import { createHash, createHmac } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { SvcMessagingTrigger } from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';
import { SEED_ACCOUNT_IDS, SEED_KEYS, startEmulator } from '../emulator';
import type { NodeSetup, TestCredentials } from '../helpers/n8n';
import { callWebhook, registerNodeType, shutdownN8nCore } from '../helpers/n8n';
import type { CapturedDelivery } from './harness';
import { asWebhookRequest, n8nAnswer, startReceiver } from './harness';
import { waitFor } from '../helpers/waitFor';
import { freeTcpPort, startRedis, type RedisServer } from '../helpers/services';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

/**
 * The trigger's webhook handler, run in n8n-core's real WebhookContext, fed with the exact requests
 * (headers and raw bytes) the emulator of the service POSTs for real SMS sends.
 */
registerNodeType('svcMessagingTrigger', new SvcMessagingTrigger());

const TYPE = 'n8n-nodes-svc-messaging.svcMessagingTrigger';
const ACCOUNT = SEED_ACCOUNT_IDS.demo;
// the demo account's Starter key: 20 requests/s leaves room for the suite's six sends
const API_KEY = SEED_KEYS.starter;
const SECRET = 'whsec_trigger_suite_5b1e0c';
const ALL_EVENTS = ['message.pending', 'message.sent', 'message.delivered', 'message.failed', 'message.expired'];
/** n8n keeps a node's static data under `node:<node name>`; the helper names the node "SVC Messaging". */
const LEDGER = 'node:SVC Messaging';

type Outcome = 'delivered' | 'unreachable' | 'expired' | 'blacklisted';
const NUMBERS: Record<Outcome, string> = {
	delivered: '+254712345678',
	unreachable: '+254712345999',
	expired: '+254712345998',
	blacklisted: '+254712345997',
};

interface SentSms {
	messageId: string;
	phoneNumber: string;
	senderId: string;
	creditsUsed: number;
	reference: string;
}

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const sent = {} as Record<Outcome, SentSms>;

async function sendSms(phoneNumber: string, reference: string): Promise<SentSms> {
	const res = await request(`${emulator.url}/api/sms/send-api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
		body: JSON.stringify({ phoneNumber, message: 'Your order has shipped', reference }),
	});
	const body = (await res.body.json()) as { data: SentSms };
	expect(res.statusCode).toBe(202);
	return { ...body.data, reference };
}

async function lookup(messageId: string) {
	const res = await request(`${emulator.url}/api/sms/messages/${messageId}`, { headers: { 'x-api-key': API_KEY } });
	expect(res.statusCode).toBe(200);
	return ((await res.body.json()) as { data: { deliveredAt?: string | null; status: string } }).data;
}

/** The first delivery of `event` for the message sent to the `outcome` number. */
function delivery(outcome: Outcome, event: string): CapturedDelivery {
	const found = receiver.deliveries.find(
		(d) => d.messageId === sent[outcome].messageId && d.event === event && d.attempt === 1,
	);
	if (!found) throw new Error(`no ${event} delivery for ${outcome}`);
	return found;
}

function withSecret(secret = SECRET): TestCredentials {
	return { svcMessagingApi: { baseUrl: emulator.url, apiKey: API_KEY, plan: 'starter', webhookSecret: secret } };
}

interface TriggerRun {
	parameters?: IDataObject;
	credentials?: TestCredentials;
	staticData?: IDataObject;
}

async function trigger(req: Pick<CapturedDelivery, 'headers' | 'rawBody'>, run: TriggerRun = {}) {
	const setup: NodeSetup = {
		type: TYPE,
		parameters: run.parameters ?? {},
		credentials: 'credentials' in run ? run.credentials : withSecret(),
	};
	const call = await callWebhook(setup, asWebhookRequest(req), run.staticData ?? {});
	return { ...n8nAnswer(call), staticData: call.staticData };
}

/** A body the emulator never sends (malformed, reshaped), signed as the emulator signs. */
function signed(base: CapturedDelivery, rawBody: string | Buffer, secret = SECRET) {
	const bytes = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
	const signature = 'sha256=' + createHmac('sha256', secret).update(bytes).digest('hex');
	return { headers: { ...base.headers, 'x-svc-signature': signature }, rawBody: bytes };
}

function withoutSignature(d: CapturedDelivery) {
	const headers = { ...d.headers };
	delete headers['x-svc-signature'];
	return { headers, rawBody: d.rawBody };
}

function payloadOf(d: Pick<CapturedDelivery, 'rawBody'>): { event: string; timestamp: string; data: IDataObject } {
	return JSON.parse(d.rawBody.toString('utf8'));
}

beforeAll(async () => {
	emulator = await startEmulator({ timeScale: 0.001, port: 0 });
	receiver = await startReceiver();
	emulator.control.updateAccount(ACCOUNT, { webhookUrl: receiver.url, webhookSecret: SECRET });
	for (const outcome of Object.keys(NUMBERS) as Outcome[]) {
		sent[outcome] = await sendSms(NUMBERS[outcome], `order-${outcome}`);
	}
	// pending, sent and a final event for each of the four messages
	await receiver.waitFor((d) => d.attempt === 1, 12);
});

afterAll(async () => {
	await emulator?.close();
	await receiver?.close();
	await shutdownN8nCore();
});

describe('the emulator deliveries this suite uses', () => {
	it('are signed POSTs of the documented events', () => {
		const d = delivery('delivered', 'message.delivered');
		expect(d.headers['content-type']).toMatch(/^application\/json/);
		expect(d.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
		expect(new Set(receiver.deliveries.map((x) => x.event))).toEqual(new Set(ALL_EVENTS));
	});
});

describe('each event type', () => {
	const cases: Array<[string, Outcome, string]> = [
		['message.pending', 'delivered', 'PENDING'],
		['message.sent', 'delivered', 'SENT'],
		['message.delivered', 'delivered', 'DELIVERED'],
		['message.failed', 'unreachable', 'FAILED'],
		['message.expired', 'expired', 'EXPIRED'],
	];

	it.each(cases)('%s starts one execution with the flattened report', async (event, outcome, status) => {
		const d = delivery(outcome, event);
		const answer = await trigger(d, { parameters: { events: ALL_EVENTS } });

		expect(answer.statusCode).toBe(200);
		expect(answer.body).toEqual({ received: true });
		expect(answer.executions).toBe(1);
		expect(answer.items).toHaveLength(1);
		const message = sent[outcome];
		const deliveredAt = event === 'message.delivered' ? (await lookup(message.messageId)).deliveredAt : null;
		const expected: IDataObject = {
			event,
			timestamp: payloadOf(d).timestamp,
			messageId: message.messageId,
			batchId: null,
			phoneNumber: message.phoneNumber,
			status,
			senderId: message.senderId,
			reference: message.reference,
			deliveredAt,
			creditsUsed: message.creditsUsed,
		};
		if (event === 'message.failed') {
			expected.reasonCode = 'DESTINATION_NOT_REACHABLE';
			expected.reasonMessage = 'The destination handset could not be reached';
		}
		expect(answer.items[0]).toEqual(expected);
		expect(Date.parse(answer.items[0].timestamp as string)).not.toBeNaN();
	});

	it('puts the delivery time of a delivered message in deliveredAt', async () => {
		const answer = await trigger(delivery('delivered', 'message.delivered'));
		expect(answer.items[0].deliveredAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
		expect(answer.items[0]).not.toHaveProperty('reasonCode');
	});
});

describe('message.failed', () => {
	it.each([
		['unreachable', 'DESTINATION_NOT_REACHABLE', 'The destination handset could not be reached'],
		['blacklisted', 'BLACKLISTED', 'The recipient has blocked this sender'],
	] as Array<[Outcome, string, string]>)('carries the reason of a %s number', async (outcome, code, text) => {
		const answer = await trigger(delivery(outcome, 'message.failed'));
		expect(answer.executions).toBe(1);
		expect(answer.items[0]).toMatchObject({
			event: 'message.failed',
			status: 'FAILED',
			messageId: sent[outcome].messageId,
			reasonCode: code,
			reasonMessage: text,
		});
	});
});

describe('event filter', () => {
	it('by default starts executions for delivered, failed and expired only', async () => {
		const selected = [
			delivery('delivered', 'message.delivered'),
			delivery('unreachable', 'message.failed'),
			delivery('expired', 'message.expired'),
		];
		for (const d of selected) {
			const answer = await trigger(d);
			expect(answer.executions).toBe(1);
			expect(answer.items[0].event).toBe(d.event);
		}
		for (const event of ['message.pending', 'message.sent']) {
			const answer = await trigger(delivery('delivered', event));
			expect(answer).toMatchObject({
				statusCode: 200,
				body: { received: true, ignored: 'event not selected' },
				executions: 0,
			});
		}
	});

	it('acknowledges an unselected event with 200 and records nothing', async () => {
		const staticData: IDataObject = {};
		const answer = await trigger(delivery('delivered', 'message.delivered'), {
			parameters: { events: ['message.failed'] },
			staticData,
		});
		expect(answer).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'event not selected' } });
		expect(staticData[LEDGER]).toBeUndefined();

		const failed = await trigger(delivery('unreachable', 'message.failed'), {
			parameters: { events: ['message.failed'] },
		});
		expect(failed.executions).toBe(1);
	});

	it('acknowledges an event the spec does not document without an execution', async () => {
		const base = delivery('delivered', 'message.delivered');
		const body = { ...payloadOf(base), event: 'message.read' };
		const answer = await trigger(signed(base, JSON.stringify(body)), { parameters: { events: ALL_EVENTS } });
		expect(answer).toMatchObject({
			statusCode: 200,
			body: { received: true, ignored: 'event not supported' },
			executions: 0,
		});
	});
});

describe('signature', () => {
	it('accepts the signature the emulator computed with the shared secret', async () => {
		const d = delivery('delivered', 'message.delivered');
		const answer = await trigger(d);
		expect(answer.statusCode).toBe(200);
		expect(answer.executions).toBe(1);
	});

	it('rejects a delivery without a signature with 401 and no execution', async () => {
		const answer = await trigger(withoutSignature(delivery('delivered', 'message.delivered')));
		expect(answer).toEqual({
			statusCode: 401,
			body: { received: false, error: 'Missing or invalid signature' },
			executions: 0,
			items: [],
			staticData: expect.anything(),
		});
	});

	it('rejects forged signatures with 401', async () => {
		const d = delivery('delivered', 'message.delivered');
		const otherSecret = signed(d, d.rawBody, 'not-the-secret');
		const tampered = Buffer.from(
			d.rawBody.toString('utf8').replace(sent.delivered.phoneNumber, '+254700000001'),
			'utf8',
		);
		expect(tampered.equals(d.rawBody)).toBe(false);
		const forgeries = [
			otherSecret,
			// a real signature over a changed body
			{ headers: d.headers, rawBody: tampered },
			// the right digest under another scheme name, truncated, or not hex
			{ headers: { ...d.headers, 'x-svc-signature': d.headers['x-svc-signature'].replace('sha256=', 'sha1=') }, rawBody: d.rawBody },
			{ headers: { ...d.headers, 'x-svc-signature': d.headers['x-svc-signature'].slice(0, -2) }, rawBody: d.rawBody },
			{ headers: { ...d.headers, 'x-svc-signature': 'sha256=' + 'zz'.repeat(32) }, rawBody: d.rawBody },
		];
		for (const forged of forgeries) {
			const answer = await trigger(forged);
			expect(answer.statusCode).toBe(401);
			expect(answer.executions).toBe(0);
		}
	});

	it('rejects the emulator signature when the credential holds another secret', async () => {
		const answer = await trigger(delivery('delivered', 'message.delivered'), { credentials: withSecret('rotated-secret') });
		expect(answer.statusCode).toBe(401);
		expect(answer.executions).toBe(0);
	});

	it('checks the signature before it parses the body', async () => {
		const d = delivery('delivered', 'message.delivered');
		const answer = await trigger({ headers: withoutSignature(d).headers, rawBody: Buffer.from('{not json') });
		expect(answer.statusCode).toBe(401);
	});

	it('never shows the secret in responses or outputs', async () => {
		const d = delivery('unreachable', 'message.failed');
		const answers = [
			await trigger(d, { parameters: { options: { includeRawPayload: true } } }),
			await trigger(withoutSignature(d)),
			await trigger(signed(d, '{bad')),
		];
		expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 400]);
		expect(JSON.stringify(answers)).not.toContain(SECRET);
	});
});

describe('no secret configured', () => {
	it('accepts unsigned deliveries when the node has no credential', async () => {
		emulator.control.updateAccount(ACCOUNT, { webhookUrl: receiver.url, webhookSecret: null });
		try {
			const unsigned = await sendSms('+254712340001', 'order-unsigned');
			const [d] = await receiver.waitFor(
				(x) => x.messageId === unsigned.messageId && x.event === 'message.delivered',
			);
			expect(d.headers['x-svc-signature']).toBeUndefined();

			const answer = await trigger(d, { credentials: {} });
			expect(answer.statusCode).toBe(200);
			expect(answer.executions).toBe(1);
			expect(answer.items[0]).toMatchObject({ messageId: unsigned.messageId, event: 'message.delivered' });

			// the same unsigned call is refused once a secret is configured
			const checked = await trigger(d);
			expect(checked.statusCode).toBe(401);
		} finally {
			emulator.control.updateAccount(ACCOUNT, { webhookUrl: receiver.url, webhookSecret: SECRET });
		}
	});

	it('does not check signatures when the credential has an empty Webhook Secret', async () => {
		const d = delivery('delivered', 'message.delivered');
		const forged = signed(d, d.rawBody, 'anything');
		const answer = await trigger(forged, { credentials: withSecret('') });
		expect(answer.statusCode).toBe(200);
		expect(answer.executions).toBe(1);
	});
});

describe('duplicates', () => {
	it('starts one execution for a delivery the emulator retried after a failed attempt', async () => {
		const retried = await sendSms('+254712340002', 'order-retried');
		receiver.answerWith((event, messageId, attempt) =>
			messageId === retried.messageId && event === 'message.delivered' && attempt === 1 ? 500 : 200,
		);
		try {
			const attempts = await receiver.waitFor(
				(x) => x.messageId === retried.messageId && x.event === 'message.delivered',
				2,
			);
			expect(attempts.map((a) => a.answeredWith)).toEqual([500, 200]);
			expect(attempts[1].rawBody.equals(attempts[0].rawBody)).toBe(true);
			// The receiver sees the second attempt before the emulator has logged its answer: wait for both.
			const log = await waitFor(
				'both attempts logged with their answers',
				() => {
					const attemptsLogged = emulator.control
						.webhookAttempts()
						.filter((a: { messageId: string; event: string }) => a.messageId === retried.messageId && a.event === 'message.delivered');
					return attemptsLogged.length === 2 && attemptsLogged.every((a: { status: number | null }) => a.status !== null) && attemptsLogged;
				},
				10_000,
				25,
			);
			expect(log.map((a: { status: number | null }) => a.status)).toEqual([500, 200]);

			// Both attempts reach n8n (the first one's 200 was lost on the way back, say).
			const staticData: IDataObject = {};
			const first = await trigger(attempts[0], { staticData });
			const second = await trigger(attempts[1], { staticData });
			expect(first.executions).toBe(1);
			expect(second).toMatchObject({
				statusCode: 200,
				body: { received: true, ignored: 'duplicate' },
				executions: 0,
			});
		} finally {
			receiver.answerWith(() => 200);
		}
	});

	it('starts no execution when the same event arrives again after a 200', async () => {
		const staticData: IDataObject = {};
		const d = delivery('expired', 'message.expired');
		expect((await trigger(d, { staticData })).executions).toBe(1);
		// a digest of messageId + event: the ledger's size does not depend on the message ID's length
		expect((staticData[LEDGER] as IDataObject).deliveryReportKeys).toEqual([
			createHash('sha256').update(`${sent.expired.messageId}|message.expired`).digest('hex').slice(0, 32),
		]);
		const again = await trigger(d, { staticData });
		expect(again).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'duplicate' } });
	});

	it('tells events of one message apart', async () => {
		const staticData: IDataObject = {};
		const parameters = { events: ALL_EVENTS };
		const events = ['message.pending', 'message.sent', 'message.delivered'];
		for (const event of events) {
			const answer = await trigger(delivery('delivered', event), { parameters, staticData });
			expect(answer.executions).toBe(1);
		}
		expect((staticData[LEDGER] as IDataObject).deliveryReportKeys).toHaveLength(3);
	});

	it('starts an execution for every delivery when Ignore Duplicates is off', async () => {
		const staticData: IDataObject = {};
		const parameters = { options: { ignoreDuplicates: false } };
		const d = delivery('delivered', 'message.delivered');
		expect((await trigger(d, { parameters, staticData })).executions).toBe(1);
		expect((await trigger(d, { parameters, staticData })).executions).toBe(1);
		expect(staticData[LEDGER]).toBeUndefined();
	});

	it('does not remember a rejected delivery', async () => {
		const staticData: IDataObject = {};
		const d = delivery('delivered', 'message.delivered');
		expect((await trigger(withoutSignature(d), { staticData })).statusCode).toBe(401);
		expect((await trigger(d, { staticData })).executions).toBe(1);
	});
});

describe('bodies', () => {
	it('rejects a body that is not JSON with 400', async () => {
		const base = delivery('delivered', 'message.delivered');
		const answer = await trigger(signed(base, 'event=message.delivered&messageId=1'));
		expect(answer).toMatchObject({
			statusCode: 400,
			body: { received: false, error: 'The body is not valid JSON' },
			executions: 0,
		});
	});

	it('rejects JSON that is not an object, and an empty body, with 400', async () => {
		const base = delivery('delivered', 'message.delivered');
		for (const body of ['[1,2]', 'null', '"message.delivered"']) {
			const answer = await trigger(signed(base, body));
			expect(answer.statusCode).toBe(400);
			expect(answer.body).toEqual({ received: false, error: 'The body is not a JSON object' });
		}
		const empty = await trigger(signed(base, ''), { credentials: {} });
		expect(empty).toMatchObject({ statusCode: 400, body: { error: 'The body is empty' }, executions: 0 });
	});

	it('rejects a body that fails the payload schema with 400 and no execution', async () => {
		const base = delivery('unreachable', 'message.failed');
		const payload = payloadOf(base);
		const { messageId: _dropped, ...withoutId } = payload.data;
		const { reason: _reason, ...withoutReason } = payload.data;
		const invalid: Array<[unknown, string]> = [
			[{ ...payload, data: withoutId }, 'data.messageId'],
			[{ ...payload, data: withoutReason }, 'data.reason'],
			[{ ...payload, timestamp: 'yesterday' }, 'timestamp'],
			[{ ...payload, data: { ...payload.data, creditsUsed: 'one' } }, 'data.creditsUsed'],
			[{ timestamp: payload.timestamp, data: payload.data }, 'event'],
		];
		for (const [body, field] of invalid) {
			const answer = await trigger(signed(base, JSON.stringify(body)), { parameters: { events: ALL_EVENTS } });
			expect(answer.statusCode).toBe(400);
			expect(answer.executions).toBe(0);
			expect((answer.body as { error: string }).error).toMatch(/^The body does not match the delivery-report schema: /);
			expect((answer.body as { error: string }).error).toContain(field);
		}
	});

	it('rejects a body over Max Body Size with 400', async () => {
		const base = delivery('delivered', 'message.delivered');
		const padded = JSON.stringify({ ...payloadOf(base), note: 'x'.repeat(2048) });
		const small = await trigger(signed(base, padded), { parameters: { options: { maxBodySizeKb: 1 } } });
		expect(small).toMatchObject({ statusCode: 400, executions: 0 });
		expect((small.body as { error: string }).error).toBe('The body is larger than 1024 bytes');
		// the same body fits the default limit; unknown fields are ignored
		const fits = await trigger(signed(base, padded));
		expect(fits.executions).toBe(1);
		expect(fits.items[0]).not.toHaveProperty('note');
	});
});

describe('Include Raw Payload', () => {
	it('adds the body as received under raw', async () => {
		const d = delivery('unreachable', 'message.failed');
		const answer = await trigger(d, { parameters: { options: { includeRawPayload: true } } });
		expect(answer.items[0].raw).toEqual(payloadOf(d));
		expect(answer.items[0].reasonCode).toBe('DESTINATION_NOT_REACHABLE');
	});

	it('is off by default', async () => {
		const answer = await trigger(delivery('unreachable', 'message.failed'));
		expect(answer.items[0]).not.toHaveProperty('raw');
	});
});

describe('one execution per event across processes (shared Redis)', () => {
	let redis: RedisServer;
	beforeAll(async () => {
		redis = await startRedis();
	}, 120_000);
	afterAll(async () => {
		await closeRedisClients();
		await redis?.stop();
	});
	const sharedCredentials = (port = redis.port): TestCredentials => ({
		svcMessagingApi: {
			baseUrl: emulator.url,
			apiKey: API_KEY,
			plan: 'starter',
			webhookSecret: SECRET,
			sharedRateLimit: true,
			redisHost: '127.0.0.1',
			redisPort: port,
		},
	});

	it('the same signed event reaching two webhook processes at the same moment starts exactly one execution, 20 times in a row', async () => {
		// 20 distinct events: the emulator's real deliveries, each as sent and as re-signed copies for other message IDs.
		const ours = new Set(Object.values(sent).map((m) => m.messageId));
		const real = receiver.deliveries.filter((d) => d.attempt === 1 && ours.has(d.messageId));
		const deliveries = Array.from({ length: 20 }, (_, k) => {
			const base = real[k % real.length];
			if (k < real.length) return base;
			const payload = payloadOf(base);
			payload.data.messageId = `${String(payload.data.messageId)}-copy${k}`;
			return signed(base, JSON.stringify(payload));
		});
		let rounds = 0;
		for (const d of deliveries) {
			// Two processes: each its own static data (as each n8n webhook process has), one Redis.
			const [a, b] = await Promise.all([
				trigger(d, { credentials: sharedCredentials(), parameters: { events: ALL_EVENTS }, staticData: {} }),
				trigger(d, { credentials: sharedCredentials(), parameters: { events: ALL_EVENTS }, staticData: {} }),
			]);
			expect(a.executions + b.executions).toBe(1);
			expect([a.body, b.body]).toContainEqual({ received: true, ignored: 'duplicate' });
			// The service's later retry of it: no execution either.
			expect((await trigger(d, { credentials: sharedCredentials(), parameters: { events: ALL_EVENTS } })).executions).toBe(0);
			rounds++;
		}
		expect(rounds).toBe(20);
	});

	it('Redis unreachable: 503 so that the service retries, and no execution', async () => {
		const d = delivery('blacklisted', 'message.failed');
		const answer = await trigger(d, { credentials: sharedCredentials(await freeTcpPort()) });
		expect(answer.statusCode).toBe(503);
		expect(answer.executions).toBe(0);
		expect((answer.body as { error: string }).error).toMatch(/Could not connect to Redis at 127\.0\.0\.1:\d+/);
	}, 20_000);
});
