/**
 * The deadline path of "Send and Wait for Delivery" (webhook mode) must not need Redis. The
 * credential shares its limits through a real redis-server behind our TCP proxy
 * (redisBehindProxy.ts); once the execution waits, the proxy cuts Redis. At the timeout the node's
 * own signed call still resumes the execution (the resume claim falls back to this process's claim
 * instead of answering 409), and every item ends on an output: none is dropped.
 */
import type { IExecuteData, INode, INodeType, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { WAIT_KEY } from '../../nodes/SvcMessaging/actions/sms/deliveryOutcome';
import { deadlineSignature, reportToken } from '../../nodes/SvcMessaging/actions/sms/deliveryWebhookWait';
import { SEED_KEYS } from '../emulator';
import { callWebhook, registerNodeType, type NodeSetup } from '../helpers/n8n';
import { SvcMessaging } from '../helpers/packageClasses';
import { useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';
import { sendAndWaitParameters, useWaitingN8n } from './waitingN8n';

const bed = useRedisBehindProxy('cut-wait', { plan: 'business', timeScale: 0.05 });
const { emu } = bed;
const setup = (): NodeSetup => ({ parameters: sendAndWaitParameters('webhook', 5), credentials: bed.credentials() });
const n8n = useWaitingN8n(setup);

it('Redis cut while the execution waits: the node\'s own call at the timeout resumes it, every item ends on an output', async () => {
	emu.control.holdCarrier(true);
	const inputs = [{ phone: '+254712350001' }, { phone: '+254712350002' }, { phone: '+254712350003' }];
	const run = await n8n.start('cut-1', inputs);
	expect(run.state).toBe('waiting');
	expect(emu.control.messages()).toHaveLength(3);

	bed.proxy.setMode('cut');
	const done = await n8n.finished('cut-1', 40_000);
	expect(done.state).toBe('finished');
	// The deadline call was answered 200, not 409 ("resuming") five times.
	expect(done.calls.filter((c) => c.deadline).map((c) => c.status)).toEqual([200]);
	const [delivered, notDelivered] = done.outputs!;
	expect(delivered).toEqual([]);
	expect(notDelivered.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	for (const item of notDelivered) {
		expect(item.json).toMatchObject({ accepted: true, delivered: false, timedOut: true });
		expect(['PENDING', 'SENT']).toContain(item.json.status);
		expect(item.json[WAIT_KEY]).toBeUndefined();
	}

	const messages = emu.control.messages();
	const sentTwice = messages.length - new Set(messages.map((m) => m.phoneNumber)).size;
	const lost = inputs.length - delivered.length - notDelivered.length;
	expect(sentTwice).toBe(0);
	expect(lost).toBe(0);
	emu.control.holdCarrier(false);
	recordCase('Send and Wait, Redis cut while waiting: the deadline call resumes, no item dropped', { sentTwice, lost, forgedAccepted: 0 });
}, 60_000);

/**
 * A second n8n webhook process: the node's modules loaded again, with their own in-process claims
 * and Redis connection, registered as a node type of their own.
 */
function secondProcess(): string {
	let handle: ((this: IWebhookFunctions) => Promise<IWebhookResponseData>) | undefined;
	jest.isolateModules(() => {
		handle = (require('../../nodes/SvcMessaging/actions/sms/deliveryReportWebhook.ts') as typeof import('../../nodes/SvcMessaging/actions/sms/deliveryReportWebhook')).handleWaitingReport;
	});
	registerNodeType('svcMessagingSecondProcess', { description: new SvcMessaging().description, webhook: handle } as unknown as INodeType);
	return 'n8n-nodes-svc-messaging.svcMessagingSecondProcess';
}

it('with Redis up, two webhook processes still resume a waiting round once; with Redis cut, the wake-up call is not refused', async () => {
	bed.proxy.setMode('open');
	const otherType = secondProcess();
	const since = new Date().toISOString();
	const until = new Date(Date.now() + 60_000).toISOString();
	const entryOf = (round: number): IExecuteData => ({
		node: { disabled: true } as INode,
		data: { main: [[], [{ json: { accepted: true, messageId: 'msg_claim', status: 'SENT', [WAIT_KEY]: { mode: 'webhook', since, until, round } }, pairedItem: { item: 0 } }]] },
		source: null,
	});
	const wakeUp = async (executionId: string, round: number, type?: string) => {
		const body = { event: 'wait.timeout' };
		const { result, response } = await callWebhook(
			{ ...setup(), ...(type ? { type } : {}) },
			{
				headers: { 'x-svc-wait-deadline': deadlineSignature(SEED_KEYS.business, executionId, until) },
				body,
				rawBody: Buffer.from(JSON.stringify(body)),
				query: { svcWait: reportToken(SEED_KEYS.business, executionId) },
			},
			{},
			{ executionId, entry: entryOf(round) },
		);
		return result.workflowData ? 200 : response.statusCode;
	};

	// The same round reaches both processes: Redis lets one resume it.
	const both = [await wakeUp('claim-1', 1), await wakeUp('claim-1', 1, otherType)];
	expect(both).toEqual([200, 409]);
	// Redis cut: the second process resumes the next round on its own claim.
	bed.proxy.setMode('cut');
	expect(await wakeUp('claim-1', 2, otherType)).toBe(200);
	recordCase('Send and Wait: the round claim holds across webhook processes with Redis up; falls back without it', {
		sentTwice: 0,
		lost: 0,
		forgedAccepted: both.filter((status) => status === 200).length - 1,
	});
}, 60_000);
