/**
 * Runs the package's node in-process through n8n-core's real ExecuteContext (test/helpers/n8n.ts),
 * one scenario at a time as the orchestrator asks, and measures around each execution: wall time,
 * this process's CPU time (the emulator is another process) and RSS.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// As test/helpers/jest.setup.ts: n8n-core reads these when it loads.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-bench-'));
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'true';
process.env.N8N_LOG_LEVEL = 'silent';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { inputItems, MESSAGE, TEMPLATE, type Plan } from './lib';

export interface NodeScenario {
	id: string;
	operation: 'send' | 'sendBulk';
	plan: Plan;
	key: string;
	items: number;
	/** `{{name}}`/`{{order}}` placeholders filled from every item's fields */
	variables?: boolean;
	/** concurrent executions on the same key (the shared limiter) */
	executions?: number;
}

export interface ExecutionFigures {
	reference: string;
	wallMs: number;
	outputItems: number;
	accepted: number;
	rejected: number;
	error?: string;
}

export interface WorkerResult {
	id: string;
	wallMs: number;
	/** Date.now() when the execution(s) started and ended (the emulator logs the same clock) */
	startedAt: number;
	endedAt: number;
	cpuMs: number;
	rssBeforeMb: number;
	rssPeakGrowthMb: number;
	heapGrowthMb: number;
	executions: ExecutionFigures[];
}

type Message = { type: 'run'; scenario: NodeScenario; url: string } | { type: 'exit' };

function parameters(scenario: NodeScenario, reference: string): IDataObject {
	const senderId = { __rl: true, mode: 'list', value: '' };
	if (scenario.operation === 'send') {
		return { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: MESSAGE, senderId, options: { reference } };
	}
	return {
		resource: 'sms',
		operation: 'sendBulk',
		recipientsSource: 'items',
		phoneNumber: '={{ $json.phone }}',
		variablesSource: scenario.variables ? 'allFields' : 'none',
		message: scenario.variables ? TEMPLATE : MESSAGE,
		senderId,
		options: { reference },
	};
}

const mb = (bytes: number) => bytes / 1024 / 1024;

/**
 * Peak RSS without sampling (a 5 ms sampler costs ~20 ms CPU a second, more than the node): Linux
 * keeps the high-water mark (VmHWM) and resets it to the current RSS on `5` > /proc/self/clear_refs.
 * Elsewhere the process's maxRSS, which only shows a peak above every earlier one.
 */
function resetPeakRss(): boolean {
	try {
		writeFileSync('/proc/self/clear_refs', '5');
		return true;
	} catch {
		return false;
	}
}

function peakRss(resettable: boolean): number {
	if (resettable) {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
		if (match) return Number(match[1]) * 1024;
	}
	return process.resourceUsage().maxRSS * 1024;
}

async function run(scenario: NodeScenario, url: string): Promise<WorkerResult> {
	const { executeNode } = await import('../test/helpers/n8n');
	const executions = scenario.executions ?? 1;
	const inputs = Array.from({ length: executions }, (_, e) => inputItems(scenario.items, e * scenario.items));
	const credentials = { svcMessagingApi: { baseUrl: url, apiKey: scenario.key, plan: scenario.plan } };

	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	const resettable = resetPeakRss();
	const rssBefore = process.memoryUsage.rss();

	const cpu = process.cpuUsage();
	const startedAt = Date.now();
	const started = performance.now();
	const figures = await Promise.all(
		inputs.map(async (items, e): Promise<ExecutionFigures> => {
			const reference = `${scenario.id}-${String.fromCharCode(65 + e)}`;
			const t0 = performance.now();
			try {
				const [output] = (await executeNode({ parameters: parameters(scenario, reference), credentials }, items)) as INodeExecutionData[][];
				const accepted = output.filter((o) => o.json.accepted === true).length;
				return { reference, wallMs: performance.now() - t0, outputItems: output.length, accepted, rejected: output.length - accepted };
			} catch (error) {
				return { reference, wallMs: performance.now() - t0, outputItems: 0, accepted: 0, rejected: 0, error: (error as Error).message };
			}
		}),
	);
	const wallMs = performance.now() - started;
	const endedAt = Date.now();
	const used = process.cpuUsage(cpu);
	const rssPeak = Math.max(peakRss(resettable), process.memoryUsage.rss());
	// The heap when the execution ended (its peak would need sampling).
	const heapAfter = process.memoryUsage().heapUsed;

	return {
		id: scenario.id,
		wallMs,
		startedAt,
		endedAt,
		cpuMs: (used.user + used.system) / 1000,
		rssBeforeMb: mb(rssBefore),
		rssPeakGrowthMb: mb(rssPeak - rssBefore),
		heapGrowthMb: mb(heapAfter - heapBefore),
		executions: figures,
	};
}

process.on('message', (message: Message) => {
	if (message.type === 'exit') {
		void import('../test/helpers/n8n').then(async ({ shutdownN8nCore }) => {
			await shutdownN8nCore();
			process.exit(0);
		});
		return;
	}
	run(message.scenario, message.url).then(
		(result) => process.send!({ type: 'result', result }),
		(error: Error) => process.send!({ type: 'error', message: error.stack ?? error.message }),
	);
});

void import('../test/helpers/n8n').then(() => process.send!({ type: 'ready' }));
