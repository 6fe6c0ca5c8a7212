/**
 * A stand-in for n8n's waiting-webhook server (`/webhook-waiting/<execution id>/<path>`), with the
 * node in n8n-core's real contexts: "Send and Wait for Delivery" runs in webhook mode with its resume
 * URL pointing here, so the emulator's delivery reports, forged calls and the node's own wake-up call
 * all arrive over real HTTP. Like n8n, it answers 404 for an unknown execution, 409 while the
 * execution runs or once it finished, hands the waiting node's entry (its data and metadata, as the
 * node left them) to the node's webhook, and runs the node again on that entry with what the
 * webhook returns. `setup` is read at every call: a test may change the credential while it waits.
 * `useWaitingN8n` registers the block's hooks: it listens before the block's tests and closes after them.
 */
import { createServer, type IncomingMessage, type Server } from 'http';

import type { IDataObject, IExecuteData, INode, INodeExecutionData } from 'n8n-workflow';

import { WAIT_KEY } from '../../nodes/SvcMessaging/actions/sms/deliveryOutcome';
import { callWebhook, executeNode, type NodeSetup } from '../helpers/n8n';
import { sendParameters } from '../sms/fixtures';

export interface WaitingRun {
	executionId: string;
	state: 'waiting' | 'running' | 'finished';
	/** the waiting node's entry, as n8n stores it (the node's input while it waits) */
	entry?: IExecuteData;
	/** the node's final outputs ("Delivered", "Not Delivered") */
	outputs?: INodeExecutionData[][];
	resumes: number;
	/** every call to the resume URL, with n8n's answer */
	calls: Array<{ status: number; deadline: boolean; body: string }>;
}

export interface WaitingN8n {
	baseUrl: string;
	runs: Map<string, WaitingRun>;
	/** runs the node for `items` as execution `executionId`: it sends, then waits here */
	start(executionId: string, items: IDataObject[]): Promise<WaitingRun>;
	/** resolves when the execution has finished (its outputs are set) */
	finished(executionId: string, timeoutMs: number): Promise<WaitingRun>;
}

const isWaitingOutput = (outputs: INodeExecutionData[][]) => outputs.flat().some((item) => item.json[WAIT_KEY] !== undefined);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/**
 * `drainMs`: after the block, the close waits until that long past the last start, so that the node's
 * own wake-up calls (at each execution's timeout) meet n8n's 409 "finished" instead of a closed port.
 */
export function useWaitingN8n(setup: () => NodeSetup, drainMs = 0): WaitingN8n {
	let lastStart = 0;
	const runs = new Map<string, WaitingRun>();
	let baseUrl = '';
	const withBase = (executionId: string): NodeSetup => ({
		...setup(),
		executionId,
		additionalData: { webhookWaitingBaseUrl: `${baseUrl}/webhook-waiting` },
	});

	function settle(run: WaitingRun, outputs: INodeExecutionData[][], ran: Partial<IExecuteData>) {
		if (isWaitingOutput(outputs)) {
			run.state = 'waiting';
			run.entry = { node: { disabled: true } as INode, data: { main: outputs }, source: null, metadata: ran.metadata };
		} else {
			run.state = 'finished';
			run.entry = undefined;
			run.outputs = outputs;
		}
	}

	const server: Server = createServer((req, res) => {
		void (async () => {
			const rawBody = await bodyOf(req);
			const url = new URL(req.url ?? '/', 'http://localhost');
			const [, , executionId] = url.pathname.split('/');
			const run = runs.get(executionId);
			const deadline = typeof req.headers['x-svc-wait-deadline'] === 'string';
			const answer = (status: number, body: unknown) => {
				run?.calls.push({ status, deadline, body: rawBody.toString() });
				res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
			};
			if (!run) return answer(404, { message: `The execution "${executionId}" does not exist.` });
			if (run.state === 'running') return answer(409, { message: `The execution "${executionId}" is running already.` });
			if (run.state === 'finished') return answer(409, { message: `The execution "${executionId}" has finished already.` });
			let body: unknown = {};
			try {
				body = JSON.parse(rawBody.toString() || '{}');
			} catch {
				body = {};
			}
			const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
			const { result, response } = await callWebhook(
				withBase(executionId),
				{ headers, body, rawBody, query: Object.fromEntries(url.searchParams) },
				{},
				{ executionId, entry: run.entry! },
			);
			if (!result.workflowData) {
				return answer(response.ended ? response.statusCode : 200, response.ended ? response.body : result.webhookResponse);
			}
			run.state = 'running';
			run.resumes++;
			answer(200, result.webhookResponse);
			const entry: Partial<IExecuteData> = { metadata: run.entry!.metadata };
			settle(run, await executeNode(withBase(executionId), result.workflowData[0], entry), entry);
		})().catch((error: Error) => {
			if (!res.headersSent) res.writeHead(500).end(JSON.stringify({ message: error.message }));
		});
	});
	beforeAll(async () => {
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastStart + drainMs - Date.now())));
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	return {
		get baseUrl() {
			return baseUrl;
		},
		runs,
		async start(executionId, items) {
			lastStart = Date.now();
			const run: WaitingRun = { executionId, state: 'running', resumes: 0, calls: [] };
			runs.set(executionId, run);
			const entry: Partial<IExecuteData> = {};
			settle(run, await executeNode(withBase(executionId), items, entry), entry);
			return run;
		},
		async finished(executionId, timeoutMs) {
			const until = Date.now() + timeoutMs;
			for (;;) {
				const run = runs.get(executionId)!;
				if (run.state === 'finished' || Date.now() > until) return run;
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
		},
	};
}

/** The Send and Wait for Delivery node's parameters the adversarial cases share (one OTP to `$json.phone`). */
export function sendAndWaitParameters(waitMode: 'webhook' | 'polling', timeout: number, options: IDataObject = {}) {
	return sendParameters({ operation: 'sendAndWaitForDelivery', waitMode, timeout, options });
}
