/** What a test file needs: clients for the shared n8n and emulator, workflows and assertions. */
import { join } from 'path';

import {
	CREDENTIAL_IDS,
	CREDENTIAL_NAMES,
	EmulatorClient,
	N8nClient,
	nodeOutput,
	pairedIndex,
	readWorkflow,
	sleep,
	waitFor,
	type Execution,
	type ExecutionItem,
	type WorkflowJson,
	type WorkflowNode,
} from './harness';

export const WORKFLOWS_DIR = join(__dirname, 'workflows');

export interface E2E {
	n8n: N8nClient;
	emulator: EmulatorClient;
	version: string;
	timeScale: number;
}

export function e2e(): E2E {
	const url = process.env.E2E_N8N_URL;
	if (!url) throw new Error('E2E_N8N_URL is not set: run the suite through jest.e2e.config.js (npm run test:e2e)');
	return {
		n8n: new N8nClient(url, { apiKey: process.env.E2E_N8N_API_KEY, cookie: process.env.E2E_N8N_COOKIE }),
		emulator: new EmulatorClient(process.env.E2E_EMULATOR_URL!),
		version: process.env.E2E_N8N_VERSION ?? '',
		timeScale: Number(process.env.E2E_TIME_SCALE ?? 1),
	};
}

/** A workflow of test/e2e/workflows/ (a fresh copy). */
export function workflow(name: string): WorkflowJson {
	return readWorkflow(join(WORKFLOWS_DIR, name.endsWith('.json') ? name : `${name}.json`));
}

/** The sms-send workflow with its Send SMS node keyed by `order-{{ $json.ref }}-shipped` (Options → Idempotency Key). */
export function keyedSmsSend(): WorkflowJson {
	const wf = workflow('sms-send');
	const options = { ...(node(wf, 'Send SMS').parameters.options as object), idempotencyKey: "={{ 'order-' + $json.ref + '-shipped' }}" };
	return withNode(wf, 'Send SMS', { parameters: { options } });
}

export function node(wf: WorkflowJson, name: string): WorkflowNode {
	const found = wf.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`No node "${name}" in workflow "${wf.name}"`);
	return found;
}

/** A copy of `wf` with `patch` merged into node `name` (parameters merged one level deep). */
export function withNode(wf: WorkflowJson, name: string, patch: Partial<WorkflowNode>): WorkflowJson {
	const copy = structuredClone(wf);
	const target = node(copy, name);
	const { parameters, ...rest } = patch;
	Object.assign(target, rest);
	if (parameters) target.parameters = { ...target.parameters, ...parameters };
	return copy;
}

export const credential = (key: keyof typeof CREDENTIAL_IDS) => ({ id: CREDENTIAL_IDS[key], name: CREDENTIAL_NAMES[key] });

export function out(execution: Execution, nodeName: string, output = 0): ExecutionItem[] {
	return nodeOutput(execution, nodeName, output);
}

export const jsonOf = (items: ExecutionItem[]) => items.map((i) => i.json);

/** The execution's error message (workflow failed), or undefined. */
export function executionError(execution: Execution): string | undefined {
	const error = execution.data?.resultData.error;
	return error ? `${error.message ?? ''}${error.description ? ` — ${error.description}` : ''}` : undefined;
}

/** Fails with the execution's own error when it did not succeed. */
export function expectSuccess(execution: Execution): Execution {
	if (execution.status !== 'success') {
		throw new Error(`Execution ${execution.id} ended "${execution.status}": ${executionError(execution) ?? 'no error recorded'}`);
	}
	return execution;
}

/** Runs workflows/<name>.json with `items` as its webhook body; the output of node `nodeName` of the successful execution. */
export async function runOne(n8n: N8nClient, name: string, nodeName: string, items: Array<Record<string, unknown>>): Promise<ExecutionItem[]> {
	const { execution } = await n8n.run(workflow(name), { items });
	return out(expectSuccess(execution), nodeName);
}

/** Reads the record again until it has `status` (the emulator moves campaigns and templates on its own timers). */
export async function untilStatus<T extends { status?: unknown }>(what: string, status: string, read: () => Promise<T>, timeoutMs: number, intervalMs: number): Promise<T> {
	return await waitFor(what, async () => ((record) => record.status === status && record)(await read()), timeoutMs, intervalMs);
}

export { pairedIndex, sleep, waitFor };
