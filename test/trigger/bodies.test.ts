import { ALL_EVENTS, delivery, payloadOf, signed, trigger, useTriggerBed } from './bed';

/** Bodies the emulator never sends, signed as it signs: refused with 400 before any execution. */
useTriggerBed();

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
