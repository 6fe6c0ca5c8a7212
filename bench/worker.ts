/**
 * Runs the package's node in-process through n8n-core's real ExecuteContext (test/helpers/n8n.ts),
 * one scenario at a time as the orchestrator asks, and measures around each execution: wall time,
 * this process's CPU time (the emulator is another process) and RSS.
 */
import { mkdtempSync } from 'fs';
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
	cpuMs: number;
	rssBeforeMb: number;
	rssPeakGrowthMb: number;
	heapPeakGrowthMb: number;
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

async function run(scenario: NodeScenario, url: string): Promise<WorkerResult> {
	const { executeNode } = await import('../test/helpers/n8n');
	const executions = scenario.executions ?? 1;
	const inputs = Array.from({ length: executions }, (_, e) => inputItems(scenario.items, e * scenario.items));
	const credentials = { svcMessagingApi: { baseUrl: url, apiKey: scenario.key, plan: scenario.plan } };

	global.gc?.();
	const rssBefore = process.memoryUsage().rss;
	const heapBefore = process.memoryUsage().heapUsed;
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let rssPeak = rssBefore;
	let heapPeak = heapBefore;
	// process.memoryUsage.rss() is a cheap system call (memoryUsage() walks the heap's spaces).
	const sampler = setInterval(() => {
		rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
	}, 5);

	const cpu = process.cpuUsage();
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
	const used = process.cpuUsage(cpu);
	clearInterval(sampler);
	const usage = process.memoryUsage();
	rssPeak = Math.max(rssPeak, usage.rss);
	heapPeak = Math.max(heapPeak, usage.heapUsed);
	// heapPeak is only the heap at the end (sampling it would cost CPU); RSS is the peak.
	// The kernel's high-water mark catches a peak between two samples (when it is this scenario's).
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	if (maxRssAfter > maxRssBefore) rssPeak = Math.max(rssPeak, maxRssAfter);

	return {
		id: scenario.id,
		wallMs,
		cpuMs: (used.user + used.system) / 1000,
		rssBeforeMb: mb(rssBefore),
		rssPeakGrowthMb: mb(rssPeak - rssBefore),
		heapPeakGrowthMb: mb(heapPeak - heapBefore),
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
