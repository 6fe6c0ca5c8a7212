import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, IWebhookResponseData } from 'n8n-workflow';

import type { FakeWebhookRequest, FakeWebhookResponse } from '../helpers/n8n';

/** One POST the emulator made to the receiver, as it arrived on the wire. */
export interface CapturedDelivery {
	headers: Record<string, string>;
	rawBody: Buffer;
	event: string;
	messageId: string;
	/** 1-based attempt number as seen by the receiver for this (messageId, event) */
	attempt: number;
	/** the status the receiver answered with */
	answeredWith: number;
}

/**
 * A small HTTP receiver standing in for n8n's webhook endpoint: it records every delivery of the
 * emulator exactly (headers and raw bytes) and answers with the status `answer` chooses.
 */
export async function startReceiver() {
	const deliveries: CapturedDelivery[] = [];
	let answer: (event: string, messageId: string, attempt: number) => number = () => 200;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks);
			let event = '';
			let messageId = '';
			try {
				const body = JSON.parse(rawBody.toString('utf8')) as { event?: string; data?: { messageId?: string } };
				event = body.event ?? '';
				messageId = body.data?.messageId ?? '';
			} catch {}
			const attempt = deliveries.filter((d) => d.event === event && d.messageId === messageId).length + 1;
			const status = answer(event, messageId, attempt);
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers)) {
				if (typeof value === 'string') headers[name] = value;
			}
			deliveries.push({ headers, rawBody, event, messageId, attempt, answeredWith: status });
			res.statusCode = status;
			res.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/svc-messaging`,
		deliveries,
		answerWith(fn: typeof answer) {
			answer = fn;
		},
		/** Waits until `count` deliveries match `predicate`, and returns them. */
		async waitFor(predicate: (d: CapturedDelivery) => boolean, count = 1, timeoutMs = 10_000) {
			const started = Date.now();
			for (;;) {
				const found = deliveries.filter(predicate);
				if (found.length >= count) return found;
				if (Date.now() - started > timeoutMs) {
					throw new Error(
						`timed out waiting for ${count} deliveries; have ${deliveries.map((d) => `${d.event}#${d.attempt}`).join(', ')}`,
					);
				}
				await new Promise((resolve) => setTimeout(resolve, 10));
			}
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The request n8n would hand to the node for a captured delivery (body parsed as n8n parses JSON). */
export function asWebhookRequest(delivery: Pick<CapturedDelivery, 'headers' | 'rawBody'>): FakeWebhookRequest {
	let body: unknown = {};
	try {
		body = JSON.parse(delivery.rawBody.toString('utf8'));
	} catch {}
	return { headers: { ...delivery.headers }, body, rawBody: Buffer.from(delivery.rawBody) };
}

export interface N8nAnswer {
	statusCode: number;
	body: unknown;
	/** executions n8n starts for this call: 1 when the node returned workflowData */
	executions: number;
	items: IDataObject[];
}

/**
 * What n8n 1.123's webhook service (`executeWebhook` in webhook-helpers) answers for the node's
 * result, for a webhook with `responseMode: 'onReceived'` and `responseData: ''`:
 * - `noWebhookResponse` → whatever the node wrote to the response object;
 * - no `workflowData` → 200 with `webhookResponse` (else "Webhook call received"), no execution;
 * - otherwise → 200 at once with `webhookResponse` (else "Workflow was started"), one execution.
 */
export function n8nAnswer(call: { result: IWebhookResponseData; response: FakeWebhookResponse }): N8nAnswer {
	const { result, response } = call;
	if (result.noWebhookResponse === true) {
		expect(response.ended).toBe(true);
		const executions = result.workflowData === undefined ? 0 : 1;
		return { statusCode: response.statusCode, body: response.body, executions, items: [] };
	}
	expect(response.ended).toBe(false);
	if (result.workflowData === undefined) {
		return {
			statusCode: 200,
			body: result.webhookResponse ?? { message: 'Webhook call received' },
			executions: 0,
			items: [],
		};
	}
	const items = (result.workflowData[0] ?? []).map((item: INodeExecutionData) => item.json);
	return {
		statusCode: 200,
		body: result.webhookResponse ?? { message: 'Workflow was started' },
		executions: 1,
		items,
	};
}
