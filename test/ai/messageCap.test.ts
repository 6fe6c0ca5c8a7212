/**
 * "Max Messages per Execution" of "SVC Messaging Tool" (toolBed.ts): counted per execution, in the
 * process or in the credential's shared Redis, refused before sending, bounded in memory.
 */
import { NodeOperationError } from 'n8n-workflow';

import { apiKeyCredentials, type ApiKeyOptions } from '../helpers/credentials';
import { useRedis } from '../helpers/redisFixture';
import { messagesCounted } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { callTool, fromAI, phone, reserveInOtherExecution, SMS_SEND, useToolEmulator } from './toolBed';

const emu = useToolEmulator();

describe('SVC Messaging Tool: the message cap per execution', () => {
	it('default 10: the 11th and 12th calls of one execution are refused, nothing more is sent; a new execution starts again', async () => {
		const calls = Array.from({ length: 12 }, (_, n) => ({ phone: phone(10 + n), text: `Reminder ${n}` }));
		const results = await callTool({ parameters: SMS_SEND, executionId: 'exec-cap-1' }, calls);
		expect(results.map((r) => r.result[0].accepted === true)).toEqual([...Array(10).fill(true), false, false]);
		expect(results[10].result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
		expect(results[10].result[0].errorMessage).toBe(
			'Message limit reached: the SVC Messaging tools may send at most 10 messages in one execution, and 10 were sent already. Nothing was sent.',
		);
		expect(results[11].result[0].fix).toMatch(/Do not call a sending tool again in this run: tell the user/);
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual(calls.slice(0, 10).map((c) => c.phone));

		const next = await callTool({ parameters: SMS_SEND, executionId: 'exec-cap-2' }, [{ phone: phone(30), text: 'Next run' }]);
		expect(next[0].result[0]).toMatchObject({ accepted: true });
	});

	it('counts over several tool nodes and calls of one execution (the same execution id)', async () => {
		await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-shared' }, [
			{ phone: phone(40), text: 'a' },
			{ phone: phone(41), text: 'b' },
		]);
		const [third, fourth] = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-shared' }, [
			{ phone: phone(42), text: 'c' },
			{ phone: phone(43), text: 'd' },
		]);
		expect(third.result[0]).toMatchObject({ accepted: true });
		expect(fourth.result[0]).toMatchObject({ errorCode: 'MESSAGE_CAP_REACHED' });
		expect(emu.control.messages()).toHaveLength(3);
	});

	it('a cap holds whatever else ran: cap 3, then 10,001 other executions count a message each, then 3 more calls: none sent', async () => {
		const setup = { parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-cap-long', workflowId: 'wf-cap-long' };
		const before = await callTool(setup, [0, 1, 2].map((n) => ({ phone: phone(110 + n), text: `first ${n}` })));
		expect(before.map((call) => call.result[0].accepted)).toEqual([true, true, true]);
		// Other executions' tool calls, each counting one message in this process (more than the old 10,000 bound).
		const others = 10_001;
		for (let n = 0; n < others; n++) await reserveInOtherExecution(`exec-other-${n}`);
		expect(messagesCounted('wf-cap-other', `exec-other-${others - 1}`)).toBe(1);
		const after = await callTool(setup, [0, 1, 2].map((n) => ({ phone: phone(120 + n), text: `later ${n}` })));
		expect(after.map((call) => call.result[0].errorCode)).toEqual(Array(3).fill('MESSAGE_CAP_REACHED'));
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([110, 111, 112].map(phone));
		expect(messagesCounted('wf-cap-long', 'exec-cap-long')).toBe(3);
	}, 120_000);

	it('memory stays bounded: at 100,000 executions counted in the last hour a new capped call is refused before sending; counts idle an hour make room; none outlive 24 h', async () => {
		const realNow = Date.now.bind(Date);
		let shift = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
		try {
			// Another day: every count of the other tests is past its 24 h.
			shift = 25 * 3600 * 1000;
			// Uncapped tool calls (0) count too (several tools of one execution count together): the quickest way to fill.
			for (let n = 0; n < 100_000; n++) await reserveInOtherExecution(`exec-bound-${n}`, 0);
			const refused = await reserveInOtherExecution('exec-bound-full').catch((error: NodeOperationError) => error);
			expect(refused).toBeInstanceOf(NodeOperationError);
			expect((refused as NodeOperationError).message).toMatch(/^Message limit not counted: this n8n process already counts the messages of 100000 executions/);
			expect((refused as NodeOperationError).context.errorCode).toBe('MESSAGE_CAP_REACHED');
			// Without a cap (0) the call is not refused; its count is kept nowhere.
			await expect(reserveInOtherExecution('exec-bound-uncapped', 0)).resolves.toBeDefined();
			expect(messagesCounted('wf-cap-other', 'exec-bound-uncapped')).toBe(0);
			// The counts that were already there stay whole.
			expect(messagesCounted('wf-cap-other', 'exec-bound-0')).toBe(1);
			// An hour later the oldest idle count makes room for a new execution.
			shift += 3600 * 1000 + 1000;
			await reserveInOtherExecution('exec-bound-later');
			expect([messagesCounted('wf-cap-other', 'exec-bound-0'), messagesCounted('wf-cap-other', 'exec-bound-later')]).toEqual([0, 1]);
			expect(messagesCounted('wf-cap-other', 'exec-bound-1')).toBe(1);
			// A day after, every count is gone (the first call of the day forgets them).
			shift += 24 * 3600 * 1000;
			await reserveInOtherExecution('exec-bound-next-day');
			expect(messagesCounted('wf-cap-other', 'exec-bound-99999')).toBe(0);
		} finally {
			clock.mockRestore();
		}
	}, 180_000);

	it.each([[-1], ['ten'], [''], [2.5], ['={{ -3 }}']])('"Max Messages per Execution" of %j fails closed: refused, nothing sent', async (cap) => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: cap } }, [{ phone: phone(95), text: 'capped?' }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_INPUT' });
		expect(call.result[0].errorMessage).toMatch(/^"Max Messages per Execution" must be a whole number: 0 for no limit/);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('a call refused before its post leaves no mark: five calls refused for an invalid cap, then the same five messages in the next execution are all sent', async () => {
		const calls = [0, 1, 2, 3, 4].map((n) => ({ phone: phone(130 + n), text: 'Your parcel is on its way' }));
		const refused = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: -1 }, executionId: 'exec-refused-first', workflowId: 'wf-refused' }, calls);
		expect(refused.map((call) => call.result[0].errorCode)).toEqual(Array(5).fill('INVALID_INPUT'));
		expect(emu.control.messages()).toHaveLength(0);
		const sent = await callTool({ parameters: SMS_SEND, executionId: 'exec-refused-next', workflowId: 'wf-refused' }, calls);
		expect(sent.map((call) => call.result[0].accepted)).toEqual(Array(5).fill(true));
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual(calls.map((c) => c.phone));
	});

	describe('with the credential’s shared Redis (queue mode: the calls of one execution may run on any worker)', () => {
		const redis = useRedis();
		const shared = (port: number): ApiKeyOptions => ({ redis: { port, prefix: 'svc-agent-cap' } });

		it('counts in Redis, not in the process: the third message of a cap of 2 is refused, nothing counted locally', async () => {
			const setup = { parameters: { ...SMS_SEND, maxMessagesPerExecution: 2 }, executionId: 'exec-redis-cap', workflowId: 'wf-redis-cap', credential: shared(redis.port) };
			const first = await callTool(setup, [{ phone: phone(60), text: 'a' }]);
			const [second, third] = await callTool(setup, [
				{ phone: phone(61), text: 'b' },
				{ phone: phone(62), text: 'c' },
			]);
			expect(first[0].result[0]).toMatchObject({ accepted: true });
			expect(second.result[0]).toMatchObject({ accepted: true });
			expect(third.result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
			expect(messagesCounted('wf-redis-cap', 'exec-redis-cap')).toBe(0);
			expect(emu.control.messages()).toHaveLength(2);
		});

		it('fails closed when that Redis cannot be reached: refused, nothing sent', async () => {
			const setup = { parameters: SMS_SEND, executionId: 'exec-redis-down', credential: shared(redis.port + 1) };
			const [call] = await callTool(setup, [{ phone: phone(63), text: 'd' }]);
			expect(call.result[0]).toMatchObject({ success: false });
			expect(String(call.result[0].errorMessage)).toMatch(/Redis at 127\.0\.0\.1/);
			expect(emu.control.messages()).toHaveLength(0);
		}, 30_000);
	});

	it('a bulk call that would go past the cap is refused whole: nothing sent', async () => {
		const bulk = {
			resource: 'sms',
			operation: 'sendBulk',
			recipientsSource: 'list',
			recipients: fromAI('recipients', 'Array of E.164 numbers', 'json'),
			message: fromAI('text', 'SMS text'),
			maxMessagesPerExecution: 3,
			options: {},
		};
		const [refused, accepted] = await callTool({ parameters: bulk }, [
			{ recipients: [phone(50), phone(51), phone(52), phone(53)], text: 'Sale today' },
			{ recipients: [phone(54), phone(55), phone(56)], text: 'Sale today' },
		]);
		expect(refused.result[0]).toMatchObject({ success: false, errorCode: 'MESSAGE_CAP_REACHED' });
		expect(refused.result[0].errorMessage).toBe('This call would send 4 messages, but only 3 of the 3 allowed in one execution are left. Nothing was sent.');
		expect(accepted.result.map((r) => r.accepted)).toEqual([true, true, true]);
		expect(emu.control.messages().map((m) => m.phoneNumber).sort()).toEqual([phone(54), phone(55), phone(56)]);
	});

	it('messages the service refused do not count; 0 means no cap', async () => {
		const checkOnlyFormat = { ...SMS_SEND, maxMessagesPerExecution: 1, options: { numberCheck: 'format' } };
		// +1…: passes the E.164 format check, refused by the service (not a supported country).
		const [refused, sentOne, capped] = await callTool({ parameters: checkOnlyFormat }, [
			{ phone: '+12025550143', text: 'x' },
			{ phone: phone(60), text: 'y' },
			{ phone: phone(61), text: 'z' },
		]);
		expect(refused.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_PHONE_NUMBER', field: 'phone' });
		expect(sentOne.result[0]).toMatchObject({ accepted: true });
		expect(capped.result[0]).toMatchObject({ errorCode: 'MESSAGE_CAP_REACHED' });

		const unlimited = await callTool(
			{ parameters: { ...SMS_SEND, maxMessagesPerExecution: 0 } },
			Array.from({ length: 12 }, (_, n) => ({ phone: phone(70 + n), text: 'no cap' })),
		);
		expect(unlimited.every((r) => r.result[0].accepted === true)).toBe(true);
	});

	it('without an execution id (an MCP Server Trigger call) each call is its own scope, and an identical message is sent again', async () => {
		const call = { phone: phone(90), text: 'Same text' };
		const first = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 1 }, executionId: null, workflowId: 'workflow-mcp' }, [call]);
		const second = await callTool({ parameters: { ...SMS_SEND, maxMessagesPerExecution: 1 }, executionId: null, workflowId: 'workflow-mcp' }, [call]);
		expect([first[0].result[0].accepted, second[0].result[0].accepted]).toEqual([true, true]);
		expect(second[0].result[0].alreadySent).toBeUndefined();
		expect(second[0].result[0].messageId).not.toBe(first[0].result[0].messageId);
		expect(emu.control.messages()).toHaveLength(2);
	});

	it('outside a tool call nothing is counted: the regular node sends 12 items', async () => {
		const { executeNode } = await import('../helpers/n8n');
		const [out] = await executeNode(
			{
				parameters: { ...SMS_SEND, phoneNumber: '={{ $json.phone }}', message: 'Hello', maxMessagesPerExecution: 1 },
				credentials: apiKeyCredentials(emu.url),
			},
			Array.from({ length: 12 }, (_, n) => ({ phone: phone(100 + n) })),
		);
		expect(out.every((o) => o.json.accepted === true)).toBe(true);
		expect(emu.control.messages()).toHaveLength(12);
	});
});
