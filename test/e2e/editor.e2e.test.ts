/**
 * What a user gets after importing the JSON files: the example workflows (examples/) and the
 * per-operation workflows (test/e2e/workflows/, sample input pinned on their Input node), imported
 * with `n8n import:workflow` at start-up and run the way the editor's "Execute workflow" button
 * runs them (REST, manual mode).
 */
import { readdirSync } from 'fs';
import { join } from 'path';

import { e2e, expectSuccess, jsonOf, out, waitFor } from './context';
import { SEED_KEYS } from '../emulator/seed';
import { readWorkflow, ROOT, type Execution } from './harness';

const { n8n, emulator } = e2e();

const EXAMPLE_IDS = {
	balance: 'svcExampleBalance',
	otpSend: 'svcExampleOtpSend',
	otpTrack: 'svcExampleOtpTrack',
	otpFallback: 'svcExampleOtpFallback',
	bulk: 'svcExampleBulkList',
	campaign: 'svcExampleCampaign',
	chat: 'svcExampleChatTpl',
	// Run with its Data Table in doNotSend.e2e.test.ts.
	optOuts: 'svcExampleOptOutHours',
	// Activated and used by an MCP client in ai.e2e.test.ts.
	mcp: 'svcExampleMcpSms',
};

describe('examples/ run from the editor', () => {
	test('every example has the id this suite and README refer to', () => {
		const ids = readdirSync(join(ROOT, 'examples')).map((f) => readWorkflow(join(ROOT, 'examples', f)).id);
		expect(ids.sort()).toEqual(Object.values(EXAMPLE_IDS).sort());
	});

	test('balance and sender IDs', async () => {
		const execution = expectSuccess(await n8n.runManual(EXAMPLE_IDS.balance));
		expect(execution.mode).toBe('manual');
		const [balance] = jsonOf(out(execution, 'Get Balance'));
		expect(balance.credits).toBe((await emulator.account('acc_demo')).credits);
		expect(jsonOf(out(execution, 'Get Sender IDs')).map((s) => s.senderId).sort()).toEqual(['20880', 'ACMEKE', 'SVCTEST']);
	});

	test('OTP send; its delivery report reaches the active tracking workflow', async () => {
		await n8n.activate(EXAMPLE_IDS.otpTrack);
		try {
			await n8n.waitForWebhook('svc-otp-delivery/svc-messaging');
			const before = (await n8n.executions(EXAMPLE_IDS.otpTrack, false)).length;
			const reportUrl = `${n8n.url}/webhook/svc-otp-delivery/svc-messaging`;
			const execution = expectSuccess(
				await n8n.runManual(EXAMPLE_IDS.otpSend, {
					// The example points at the editor of `npm run dev` (localhost:5678); here n8n runs elsewhere.
					edit: (wf) => {
						const send = wf.nodes.find((n) => n.name === 'Send OTP')!;
						send.parameters.options = { ...send.parameters.options, webhookUrl: reportUrl };
					},
				}),
			);
			const [sent] = jsonOf(out(execution, 'Send OTP'));
			expect(sent).toMatchObject({ accepted: true, phoneNumber: '+254712345678' });
			expect(sent.reference).toMatch(/^login-\d+$/);
			const [message] = (await emulator.messages()).filter((m) => m.messageId === sent.messageId);
			expect(message.message).toMatch(/^Your verification code is \d{6}\. It expires in 10 minutes\.$/);

			const tracked: Execution[] = await waitFor('the tracking execution', async () => {
				const list = await n8n.executions(EXAMPLE_IDS.otpTrack, true);
				return list.length > before && list.every((e) => e.status !== 'running' && e.stoppedAt) ? list : undefined;
			});
			const execution2 = tracked[0];
			expect(jsonOf(out(expectSuccess(execution2), 'OTP Delivered'))[0]).toMatchObject({
				attemptId: sent.reference,
				phone: '+254712345678',
				outcome: 'delivered',
			});
		} finally {
			await n8n.deactivate(EXAMPLE_IDS.otpTrack);
		}
	});

	test('OTP with fallback: delivered → "OTP Delivered"; not delivered (999) → the otp_code chat template with the same code', async () => {
		await emulator.prepareOtpFallback(SEED_KEYS.starter, ['+254712345999']);
		const delivered = expectSuccess(await n8n.runManual(EXAMPLE_IDS.otpFallback));
		expect(jsonOf(out(delivered, 'OTP Delivered'))).toEqual([expect.objectContaining({ delivered: true, status: 'DELIVERED' })]);
		expect(out(delivered, 'Send OTP by Chat')).toHaveLength(0);

		const failed = expectSuccess(
			await n8n.runManual(EXAMPLE_IDS.otpFallback, {
				edit: (wf) => {
					const attempt = wf.nodes.find((n) => n.name === 'Login Attempt')!;
					attempt.parameters.jsonOutput = String(attempt.parameters.jsonOutput).replace('+254712345678', '+254712345999');
				},
			}),
		);
		expect(out(failed, 'OTP Delivered')).toHaveLength(0);
		const code = String(jsonOf(out(failed, 'Login Attempt'))[0].code);
		const [chat] = jsonOf(out(failed, 'Send OTP by Chat'));
		expect(chat).toMatchObject({ phoneNumber: '+254712345999' });
		const recorded = (await emulator.chatMessages()).find((m) => m.messageId === chat.messageId);
		expect(recorded.content).toMatchObject({ name: 'otp_code' });
		expect(JSON.stringify(recorded.content)).toContain(code);
	});

	test('bulk SMS from a customer list: 4 accepted, the Ghana number rejected and routed to "Needs Attention"', async () => {
		const execution = expectSuccess(await n8n.runManual(EXAMPLE_IDS.bulk));
		const output = jsonOf(out(execution, 'Send Bulk SMS'));
		expect(output.map((o) => o.accepted === true)).toEqual([true, true, true, false, true]);
		expect(out(execution, 'Sent')).toHaveLength(4);
		expect(out(execution, 'Needs Attention')).toHaveLength(1);
		const recorded = await emulator.messages({ batchId: output[0].batchId });
		expect(recorded.map((m) => m.message)).toContain('Hi Brian, your order KE-1043 ships today. Thank you for shopping with ACME!');
	});

	test('scheduled campaign created (tomorrow 09:00 in the workflow timezone), then cancelled', async () => {
		const execution = expectSuccess(await n8n.runManual(EXAMPLE_IDS.campaign));
		const [created] = jsonOf(out(execution, 'Create Campaign'));
		const [cancelled] = jsonOf(out(execution, 'Cancel Campaign'));
		expect(created).toMatchObject({ status: 'SCHEDULED', totalRecipients: 6 });
		// n8n runs in Africa/Nairobi (UTC+3): 09:00 there is 06:00Z.
		expect(created.scheduledAt).toMatch(/T06:00:00\.000Z$/);
		expect(cancelled).toMatchObject({ id: created.id, status: 'CANCELLED' });
	});

	test('chat template created, approved by the review, sent with mapped variables', async () => {
		const execution = expectSuccess(await n8n.runManual(EXAMPLE_IDS.chat, { timeoutMs: 90_000 }));
		const [created] = jsonOf(out(execution, 'Create Template'));
		const [reviewed] = jsonOf(out(execution, 'Get Template'));
		const [sent] = jsonOf(out(execution, 'Send Template Message'));
		expect(created.status).toBe('PENDING');
		expect(reviewed.status).toBe('APPROVED');
		const recorded = (await emulator.chatMessages()).find((m) => m.messageId === sent.messageId);
		expect(recorded.content).toMatchObject({ name: created.name, language: { code: 'en' } });
		expect(JSON.stringify(recorded.content)).toContain('ACME Westlands');
	});
});

describe('test/e2e/workflows/ run from the editor with their pinned sample input', () => {
	const files = readdirSync(join(ROOT, 'test', 'e2e', 'workflows')).filter((f) => f.endsWith('.json'));
	const manual = files
		.map((f) => readWorkflow(join(ROOT, 'test', 'e2e', 'workflows', f)))
		.filter((wf) => wf.nodes.some((n) => n.name === 'Input'));

	test.each(manual.map((wf) => [wf.name, wf.id!]))('%s', async (_name, id) => {
		const execution = expectSuccess(await n8n.runManual(id));
		const last = execution.data?.resultData.lastNodeExecuted;
		expect(last).toBeDefined();
		expect(out(execution, last!).length).toBeGreaterThan(0);
	});
});
