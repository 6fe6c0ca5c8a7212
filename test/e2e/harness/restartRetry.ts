/**
 * n8n SIGKILLed in the middle of a Send, started again on the same user folder, and the crashed
 * execution retried as the executions list's Retry does (shared/notes/restart-and-retry.md), counted
 * per number at the emulator. Used for the self-hosted package (test/e2e/restart.e2e.test.ts) and the
 * Cloud edition (test/packages/cloudRestart.test.ts): only the Send node's type and credential differ.
 */
import { join } from 'path';

import { sleep } from './processes';
import { waitFor } from '../../helpers/waitFor';
import type { EmulatorClient } from './emulatorClient';
import type { N8n } from './n8n';
import { ROOT } from './target';
import { nodeOutput, pairedIndex, readWorkflow, type Execution, type ExecutionItem, type WorkflowJson } from './workflows';

/** test/e2e/workflows/sms-send.json (Webhook → Items → Send SMS) with its Send SMS node of `type`, on `credentials`. */
export function smsSendWorkflow(send: { type?: string; credentials: Record<string, { id: string; name: string }> }): WorkflowJson {
	const workflow = readWorkflow(join(ROOT, 'test', 'e2e', 'workflows', 'sms-send.json'));
	const node = workflow.nodes.find((n) => n.name === 'Send SMS')!;
	if (send.type) node.type = send.type;
	node.credentials = send.credentials;
	return workflow;
}

export interface KilledSend {
	n8n: N8n;
	emulator: EmulatorClient;
	/** the Send SMS node: its type (default the self-hosted one) and credentials (the plan's key) */
	send: { type?: string; credentials: Record<string, { id: string; name: string }> };
	/** names the run in the messages' reference and in the log line */
	label: string;
	/** the numbers: `${phonePrefix}00000`, `${phonePrefix}00001`… */
	phonePrefix: string;
	items: number;
	/** n8n is killed once this many messages have reached the emulator */
	killAfter: number;
}

export interface KilledSendCounts {
	/** the Retry's Send SMS output */
	output: ExecutionItem[];
	sentBeforeKill: number;
	/** numbers with two SMS or more */
	twice: number;
	/** numbers with no SMS */
	without: number;
	/** items the Retry refused as of unknown outcome */
	unknown: number;
	/** numbers with no SMS that the Retry did not report as of unknown outcome */
	lost: number;
	/** refused by the Retry as of unknown outcome although their message never reached the service */
	unknownNeverReceived: number;
	alreadySent: number;
	sentByRetry: number;
}

/**
 * Starts a Send of `items` numbers through a production webhook, SIGKILLs n8n once `killAfter`
 * messages have reached the emulator, restarts it, retries the crashed execution through n8n's REST
 * API (the editor's Retry, "with original workflow"), and counts what the emulator got, per number.
 */
export async function killMidSendThenRetry(options: KilledSend): Promise<KilledSendCounts> {
	const { n8n, emulator, label, items: count, killAfter } = options;
	const ref = `${label}-${Date.now().toString(36)}`;
	const items = Array.from({ length: count }, (_, i) => ({ phone: `${options.phonePrefix}${String(i).padStart(5, '0')}`, text: `Order ${i} shipped`, ref }));
	const ours = async () => (await emulator.messages({ accountId: 'acc_demo' })).filter((m) => m.reference === ref);
	// Continue (regular output): the Retry's outcome per item is then in its output.
	const wf = smsSendWorkflow(options.send);
	const prepared = await n8n.prepareRun(wf);
	// Its webhook call is cut by the kill: nothing to wait for.
	void prepared.post({ items }).finish().catch(() => undefined);
	await waitFor(`${killAfter} messages at the emulator`, async () => ((await ours()).length >= killAfter ? true : undefined), 120_000, 50);
	await n8n.kill();
	// A request n8n had written before it died is still answered by the emulator: let it land.
	await sleep(1_000);
	const beforeKill = await ours();
	const receivedBeforeKill = new Set(beforeKill.map((m) => m.phoneNumber as string));

	await n8n.restart();
	const crashed = await waitFor(
		'the killed execution marked crashed',
		async () => (await n8n.executions(prepared.workflowId, false)).find((e) => e.status === 'crashed' || e.status === 'error'),
		60_000,
		250,
	);
	await n8n.rest('POST', `/rest/executions/${crashed.id}/retry`, { loadWorkflow: false });
	const retried = await waitFor(
		'the retry to finish',
		async () => (await n8n.executions(prepared.workflowId, true)).find((e: Execution) => e.id !== crashed.id && e.status !== 'running' && e.status !== 'new' && e.stoppedAt),
		180_000,
		500,
	);

	const output = nodeOutput(retried, 'Send SMS');
	const messages = await ours();
	const perNumber = new Map<string, number>();
	for (const m of messages) perNumber.set(m.phoneNumber, (perNumber.get(m.phoneNumber) ?? 0) + 1);
	const unknownItems = new Set(output.filter((i) => i.json.errorCode === 'UNKNOWN_OUTCOME').map((i) => pairedIndex(i)));
	const unknownNumbers = items.filter((_, index) => unknownItems.has(index)).map((i) => i.phone);
	const counts = {
		sentBeforeKill: beforeKill.length,
		twice: [...perNumber.values()].filter((n) => n > 1).length,
		without: items.filter((i) => !perNumber.has(i.phone)).length,
		unknown: unknownItems.size,
		lost: items.filter((i, index) => !perNumber.has(i.phone) && !unknownItems.has(index)).length,
		unknownNeverReceived: unknownNumbers.filter((number) => !receivedBeforeKill.has(number)).length,
		alreadySent: output.filter((i) => i.json.alreadySent === true).length,
		sentByRetry: messages.length - beforeKill.length,
	};
	console.log(
		`n8n ${n8n.info.version}, ${label}: killed after ${counts.sentBeforeKill} of ${count} SMS, restarted, Retry: ${counts.alreadySent} reported sent before, ` +
			`${counts.unknown} refused as unknown outcome (${counts.unknownNeverReceived} of them never reached the emulator), ${counts.sentByRetry} sent by the Retry; ` +
			`${counts.twice} numbers with two SMS, ${counts.without} without one, ${counts.lost} of them unreported`,
	);
	return { output, ...counts };
}
