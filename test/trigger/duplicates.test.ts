import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { waitFor } from '../helpers/waitFor';
import { useRedis } from '../helpers/redisFixture';
import { downRedisPort } from '../helpers/services';
import { ALL_EVENTS, delivery, LEDGER, payloadOf, receiver, SECRET, sendSms, sent, signed, trigger, useTriggerBed, withoutSignature, withSecret } from './bed';

/** One execution per event: the duplicate ledger in static data, and in Redis across webhook processes. */
const emulator = useTriggerBed();

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

describe('one execution per event across processes (shared Redis)', () => {
	const redis = useRedis();
	const sharedCredentials = (port = redis.port) => withSecret(SECRET, { redis: { port } });

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
		const down = await downRedisPort();
		const answer = await trigger(d, { credentials: sharedCredentials(down.port) }).finally(down.close);
		expect(answer.statusCode).toBe(503);
		expect(answer.executions).toBe(0);
		expect((answer.body as { error: string }).error).toMatch(/Could not connect to Redis at 127\.0\.0\.1:\d+/);
	}, 20_000);
});
