import type { IDataObject } from 'n8n-workflow';

import { ALL_EVENTS, delivery, LEDGER, lookup, type Outcome, payloadOf, receiver, sent, signed, trigger, useTriggerBed } from './bed';

/** What the trigger emits for each event the emulator sends, and which events it starts executions for. */
useTriggerBed();

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
