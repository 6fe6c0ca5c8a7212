/**
 * `npm run demo`: the package working in a real n8n, offline, against the local emulator.
 *
 * Starts the emulator and n8n 2.41.1 on Node 24 (`npm run demo:n8n1`: 1.123.81 on Node 20), installed
 * into .n8n-e2e/ on first use, loads the package the way a user installs it, and runs the example
 * workflows of examples/ — the same JSON a user imports — printing what each did and what the
 * emulator recorded. Exits 0 when every step did what it should, 1 otherwise.
 */
import { join } from 'path';

import { SEED_KEYS } from '../emulator/seed';
import { rejection } from './demoText';
import { redisNote } from './devOptions';

import {
	asWebhookWorkflow,
	ensureInstalled,
	nodeOutput,
	readWorkflow,
	ROOT,
	startStack,
	targetInfo,
	type Execution,
	type Stack,
	type WorkflowJson,
} from './harness';

const EXAMPLES = join(ROOT, 'examples');
/** Emulator durations × 0.2: delivery in under a second, template review in 0.4 s. */
const TIME_SCALE = 0.2;

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const green = (s: string) => (process.stdout.isTTY ? `\x1b[32m${s}\x1b[0m` : s);
const red = (s: string) => (process.stdout.isTTY ? `\x1b[31m${s}\x1b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const say = (s = '') => process.stdout.write(`${s}\n`);

const results: Array<{ step: string; ok: boolean; detail: string }> = [];

function check(step: string, ok: boolean, detail: string) {
	results.push({ step, ok, detail });
	say(`  ${ok ? green('✔') : red('✘')} ${detail}`);
}

function example(name: string): WorkflowJson {
	return readWorkflow(join(EXAMPLES, `${name}.json`));
}

const items = (execution: Execution, node: string, output = 0) => nodeOutput(execution, node, output).map((i) => i.json);

function table(rows: Array<Record<string, unknown>>, columns: string[]) {
	const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v));
	const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
	say(`    ${columns.map((c, i) => bold(c.padEnd(widths[i]))).join('  ')}`);
	for (const r of rows) say(`    ${columns.map((c, i) => cell(r[c]).padEnd(widths[i])).join('  ')}`);
}

function failedBecause(execution: Execution): string {
	const error = execution.data?.resultData.error;
	return error ? `${error.message ?? ''} ${error.description ?? ''}`.trim() : execution.status;
}

async function balanceAndSenderIds(stack: Stack) {
	say(bold('\n1. Account balance and sender IDs') + dim('  (examples/balance-and-sender-ids.json)'));
	const { execution } = await stack.n8n.run(asWebhookWorkflow(example('balance-and-sender-ids'), 'demo-balance'));
	const [balance] = items(execution, 'Get Balance');
	const senderIds = items(execution, 'Get Sender IDs');
	say(`    balance: ${balance?.credits} credits (updated ${balance?.updatedAt})`);
	table(senderIds.map((s) => ({ ...s, countries: (s.countries as string[]).join(' ') })), ['senderId', 'type', 'status', 'countries']);
	check('balance', execution.status === 'success' && typeof balance?.credits === 'number', `read the balance and ${senderIds.length} sender IDs`);
	return Number(balance?.credits);
}

async function otpWithDeliveryTracking(stack: Stack) {
	const { n8n, emulator } = stack;
	say(bold('\n2. OTP send with delivery tracking through the SVC Messaging Trigger'));
	say(dim('   (examples/otp-delivery-tracking.json is activated; examples/otp-send.json runs twice)'));
	const tracking = example('otp-delivery-tracking');
	const webhookId = tracking.nodes.find((n) => n.type.endsWith('svcMessagingTrigger'))!.webhookId!;
	const trackingId = await n8n.createWorkflow(tracking);
	await n8n.activate(trackingId);
	await n8n.waitForWebhook(`${webhookId}/svc-messaging`);
	const reportUrl = `${n8n.url}/webhook/${webhookId}/svc-messaging`;
	say(`    trigger listening on ${reportUrl}`);

	const send = example('otp-send');
	const sendNode = send.nodes.find((n) => n.name === 'Send OTP')!;
	sendNode.parameters.options = { ...sendNode.parameters.options, webhookUrl: reportUrl };
	const sent: Array<Record<string, any>> = [];
	for (const phone of ['+254712345678', '+254712000999']) {
		const wf = structuredClone(send);
		const attempt = wf.nodes.find((n) => n.name === 'Login Attempt')!;
		attempt.parameters.jsonOutput = String(attempt.parameters.jsonOutput).replace('+254712345678', phone);
		const { execution } = await n8n.run(asWebhookWorkflow(wf, `demo-otp-${phone.slice(-3)}`));
		const [result] = items(execution, 'Send OTP');
		sent.push(result ?? { phoneNumber: phone, error: failedBecause(execution) });
	}
	table(sent, ['phoneNumber', 'messageId', 'status', 'encoding', 'segments', 'creditsUsed', 'reference']);
	check('otp-send', sent.every((s) => s.accepted === true), `sent ${sent.length} OTP SMS (one to a test number that fails delivery)`);

	const executions = await n8n.waitForExecutions(trackingId, 2, 30_000).catch(() => [] as Execution[]);
	const reports = executions.map((e) => {
		const report = items(e, 'OTP Delivery Report')[0] ?? {};
		const delivered = items(e, 'OTP Delivered')[0];
		const other = items(e, 'Offer Another Channel')[0];
		return { ...report, branch: delivered ? 'OTP Delivered' : other ? 'Offer Another Channel' : '?' } as Record<string, any>;
	});
	say('    delivery reports that started the tracking workflow:');
	table(reports, ['event', 'phoneNumber', 'status', 'reasonCode', 'reference', 'branch']);
	const ids = sent.map((s) => s.messageId as string);
	const attempts = (await emulator.client.webhooks()).filter((a: any) => ids.includes(a.messageId));
	say(
		`    the emulator posted ${attempts.length} signed delivery reports (pending, sent, final) — ` +
			`${reports.length} started the workflow, the others were acknowledged as events not selected`,
	);
	check(
		'otp-tracking',
		reports.length === 2 &&
			reports.some((r) => r.event === 'message.delivered' && r.branch === 'OTP Delivered') &&
			reports.some((r) => r.event === 'message.failed' && r.reasonCode === 'DESTINATION_NOT_REACHABLE' && r.branch === 'Offer Another Channel') &&
			attempts.every((a: any) => a.signed && a.status === 200),
		'delivered and failed reports received by the trigger, routed by the IF node',
	);
	await n8n.deactivate(trackingId);
	return { sent: sent.length, reports: reports.length, posted: attempts.length };
}

async function bulkFromList(stack: Stack) {
	const { n8n, emulator } = stack;
	say(bold('\n3. Bulk SMS from a customer list, with per-recipient variables') + dim('  (examples/bulk-send-from-list.json)'));
	const { execution } = await n8n.run(asWebhookWorkflow(example('bulk-send-from-list'), 'demo-bulk'));
	const output = items(execution, 'Send Bulk SMS');
	const customers = items(execution, 'One Item per Customer');
	table(
		output.map((o, i) => ({ name: customers[i]?.name, ...o, result: o.accepted ? 'accepted' : rejection(o) })),
		['name', 'phoneNumber', 'batchId', 'result'],
	);
	const batchId = output.find((o) => o.batchId)?.batchId as string | undefined;
	const recorded = batchId ? await emulator.client.messages({ batchId }) : [];
	say(`    the emulator recorded ${recorded.length} messages in batch ${batchId}:`);
	for (const m of recorded) say(`      ${m.phoneNumber}  “${m.message}”`);
	const accepted = output.filter((o) => o.accepted === true).length;
	check(
		'bulk',
		execution.status === 'success' && output.length === 5 && accepted === 4 && recorded.length === 4 && items(execution, 'Needs Attention', 0).length === 1,
		`${accepted} of ${output.length} accepted in one call; the Ghana number (sender ID not approved there) came back as a rejected item, routed to "Needs Attention"`,
	);
	return { accepted, rejected: output.length - accepted };
}

async function scheduledCampaign(stack: Stack) {
	const { n8n, emulator } = stack;
	say(bold('\n4. A scheduled campaign, created then cancelled') + dim('  (examples/scheduled-campaign.json)'));
	const { execution } = await n8n.run(asWebhookWorkflow(example('scheduled-campaign'), 'demo-campaign'));
	const [created] = items(execution, 'Create Campaign');
	const [fetched] = items(execution, 'Get Campaign');
	const [cancelled] = items(execution, 'Cancel Campaign');
	if (!created) say(`    ${red(failedBecause(execution))}`);
	table(
		[
			{ step: 'Create', ...created },
			{ step: 'Get', ...fetched },
			{ step: 'Cancel', ...cancelled },
		],
		['step', 'id', 'name', 'status', 'totalRecipients', 'scheduledAt'],
	);
	const sentForIt = created ? await emulator.client.messages({ campaignId: String(created.id) }) : [];
	check(
		'campaign',
		created?.status === 'SCHEDULED' && cancelled?.status === 'CANCELLED' && sentForIt.length === 0,
		`campaign ${created?.id} for ${created?.totalRecipients} recipients (3 numbers + contact group 1, deduplicated) scheduled, then cancelled; nothing sent`,
	);
}

async function chatTemplate(stack: Stack) {
	const { n8n, emulator } = stack;
	say(bold('\n5. A chat template created, approved, and sent with mapped variables') + dim('  (examples/chat-template-send.json)'));
	const { execution } = await n8n.run(asWebhookWorkflow(example('chat-template-send'), 'demo-chat'));
	const [created] = items(execution, 'Create Template');
	const [reviewed] = items(execution, 'Get Template');
	const [sent] = items(execution, 'Send Template Message');
	if (!sent) say(`    ${red(failedBecause(execution))}`);
	say(`    template ${created?.name}: ${created?.status} → ${reviewed?.status}${reviewed?.approvedAt ? ` (approved ${reviewed.approvedAt})` : ''}`);
	const recorded = sent ? (await emulator.client.chatMessages()).find((m: any) => m.messageId === sent.messageId) : undefined;
	if (recorded) {
		const params = (recorded.content?.components ?? []).flatMap((c: any) => (c.parameters ?? []).map((p: any) => p.text));
		say(`    the emulator recorded chat message ${recorded.messageId} to ${recorded.phoneNumber}: template ${recorded.content?.name}, variables ${JSON.stringify(params)}`);
	}
	check(
		'chat',
		created?.status === 'PENDING' && reviewed?.status === 'APPROVED' && typeof sent?.messageId === 'string' && !!recorded,
		'template reviewed by the emulator, then sent to an opted-in number with variables from the input item',
	);
}

async function otpWithFallback(stack: Stack) {
	const { n8n, emulator } = stack;
	say(bold('\n6. OTP by SMS, a chat template when it is not delivered, in one workflow') + dim('  (examples/otp-with-fallback.json)'));
	await emulator.client.prepareOtpFallback(SEED_KEYS.starter, ['+254712345999']);
	say(dim('    the approved chat template otp_code and a chat opt-in for +254712345999 were set up at the emulator'));
	const rows: Array<Record<string, unknown>> = [];
	for (const phone of ['+254712345678', '+254712345999']) {
		const wf = example('otp-with-fallback');
		const attempt = wf.nodes.find((n) => n.name === 'Login Attempt')!;
		attempt.parameters.jsonOutput = String(attempt.parameters.jsonOutput).replace('+254712345678', phone);
		const { execution } = await n8n.run(asWebhookWorkflow(wf, `demo-fallback-${phone.slice(-3)}`));
		const [delivered] = items(execution, 'Send OTP and Wait', 0);
		const [notDelivered] = items(execution, 'Send OTP and Wait', 1);
		const [chat] = items(execution, 'Send OTP by Chat');
		const outcome = delivered ?? notDelivered;
		rows.push({
			phoneNumber: phone,
			status: outcome?.status ?? failedBecause(execution),
			waitedSeconds: outcome?.waitedSeconds,
			output: delivered ? 'Delivered' : notDelivered ? 'Not Delivered' : '?',
			fallback: chat ? `chat ${chat.messageId}` : '—',
		});
	}
	table(rows, ['phoneNumber', 'status', 'waitedSeconds', 'output', 'fallback']);
	check(
		'otp-fallback',
		rows[0].output === 'Delivered' && rows[0].fallback === '—' && rows[1].output === 'Not Delivered' && String(rows[1].fallback).startsWith('chat '),
		'the delivered OTP ended on "Delivered"; the failed one went on to the chat template',
	);
}

async function main() {
	const started = Date.now();
	const info = targetInfo();
	say(bold('SVC Messaging for n8n — demo'));
	ensureInstalled(info, (line) => say(line));
	say(`Starting the local emulator and n8n ${info.version} with the package loaded (about 20-30 s)...`);
	const stack = await startStack({ target: info.target, timeScale: TIME_SCALE, withRedis: true });
	say(dim(`n8n ${stack.n8n.url}  ·  emulator ${stack.emulator.url}  ·  ready in ${((Date.now() - started) / 1000).toFixed(0)} s`));
	for (const line of redisNote(stack.redis)) say(dim(line));
	let stats: Record<string, unknown> = {};
	try {
		const credits = await balanceAndSenderIds(stack);
		const otp = await otpWithDeliveryTracking(stack);
		const bulk = await bulkFromList(stack);
		await scheduledCampaign(stack);
		await chatTemplate(stack);
		await otpWithFallback(stack);
		const after = (await stack.emulator.client.account('acc_demo')).credits as number;
		stats = { otp, bulk, creditsBefore: credits, creditsAfter: after };
	} catch (error) {
		results.push({ step: 'run', ok: false, detail: String((error as Error)?.stack ?? error) });
		say(red(String((error as Error)?.stack ?? error)));
	} finally {
		await stack.stop();
	}

	const failed = results.filter((r) => !r.ok);
	say(bold('\nSummary'));
	const s = stats as any;
	if (s.otp) {
		say(`  OTP: ${s.otp.sent} SMS sent; ${s.otp.posted} signed delivery reports posted by the emulator, ${s.otp.reports} started the tracking workflow`);
		say(`  Bulk: ${s.bulk.accepted} accepted, ${s.bulk.rejected} rejected and mapped back to its input item`);
		say(`  Credits: ${s.creditsBefore} → ${s.creditsAfter}`);
	}
	say(`  ${results.length - failed.length} of ${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
	if (failed.length) {
		say(red(`  Failed: ${failed.map((f) => f.step).join(', ')}`));
		process.exit(1);
	}
	say(green('  Everything worked. Next: `npm run dev` opens the same setup in the n8n editor (http://localhost:5678).'));
	process.exit(0);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
	process.exit(1);
});
