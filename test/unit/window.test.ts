import { NodeOperationError } from 'n8n-workflow';

import type { SendUnit, UnitOutcome } from '../../nodes/SvcMessaging/sending/round';
import { inWindow, postInWindow, redisLost, sendWindow } from '../../nodes/SvcMessaging/sending/window';
import { REDIS_UNAVAILABLE, withErrorCode } from '../../nodes/SvcMessaging/transport/errors';
import { PLANS } from '../../nodes/SvcMessaging/transport/service';

const node = { id: 'n', name: 'SMS', type: 't', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
const unitsOf = (n: number): SendUnit[] => Array.from({ length: n }, (_, itemIndex) => ({ itemIndex, identity: `m${itemIndex}` }));
const tick = async () => await new Promise((resolve) => setImmediate(resolve));

describe('postInWindow', () => {
	it('keeps two seconds of the plan rate under way: 10 at Free, 200 at Business', () => {
		expect(sendWindow(PLANS.free)).toBe(10);
		expect(sendWindow(PLANS.business)).toBe(200);
	});

	it('has at most `window` posts under way, starts the next as one settles, and posts each unit once', async () => {
		let running = 0;
		let most = 0;
		const posted: number[] = [];
		const { notStarted, lost } = await postInWindow(unitsOf(50), 4, async (unit) => {
			most = Math.max(most, ++running);
			posted.push(unit.itemIndex);
			await tick();
			running--;
			return undefined;
		});
		expect(most).toBe(4);
		expect(posted).toEqual(Array.from({ length: 50 }, (_, i) => i));
		expect({ notStarted, lost }).toEqual({ notStarted: [], lost: undefined });
	});

	it('after a Redis loss starts nothing more: it answers the units not started and the loss', async () => {
		const error = withErrorCode(new NodeOperationError(node, 'Lost the connection to Redis at 127.0.0.1:6379'), REDIS_UNAVAILABLE);
		const posted: number[] = [];
		const { notStarted, lost } = await postInWindow(unitsOf(100), 5, async (unit) => {
			posted.push(unit.itemIndex);
			await tick();
			const outcome: UnitOutcome = unit.itemIndex < 7 ? { ok: true, json: {} } : { ok: false, itemIndex: unit.itemIndex, error };
			return redisLost(outcome);
		});
		// The window's posts under way when Redis went settle as they are; nothing after them starts.
		expect(posted.length).toBeLessThanOrEqual(7 + 5);
		expect(lost?.error).toBe(error);
		expect(notStarted.map((unit) => unit.itemIndex)).toEqual(Array.from({ length: 100 - posted.length }, (_, i) => posted.length + i));
	});

	it('inWindow runs at most `window` tasks at once and keeps the results in order', async () => {
		let running = 0;
		let most = 0;
		const results = await inWindow(20, 3, async (i) => {
			most = Math.max(most, ++running);
			await tick();
			running--;
			return i * 2;
		});
		expect(most).toBe(3);
		expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
	});
});
