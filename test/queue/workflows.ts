/** The queue suite's workflows and their input: Webhook (answers at once) → Split Out body.items → SVC Messaging. */
import { NODE_TYPE, type WorkflowJson } from '../e2e/harness';

export const FREE_EXECUTIONS = 4;
export const FREE_ITEMS = 100;
export const BULK_EXECUTIONS = 3;
export const BULK_RECIPIENTS = 3_000;

export type Credential = { id: string; name: string };

export function webhookWorkflow(name: string, path: string, sendNode: WorkflowJson['nodes'][number]): WorkflowJson {
	return {
		name,
		nodes: [
			{
				name: 'Input',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: path,
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{ name: 'Items', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [220, 0], parameters: { fieldToSplitOut: 'body.items', options: {} } },
			sendNode,
		],
		connections: {
			Input: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: sendNode.name, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The package's node at the end of the webhook workflow: an SMS operation on the queue's API key. */
function smsNode(name: string, credential: Credential, parameters: Record<string, unknown>): WorkflowJson['nodes'][number] {
	return {
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [440, 0],
		credentials: { svcMessagingApi: credential },
		parameters: {
			resource: 'sms',
			phoneNumber: '={{ $json.phone }}',
			senderId: { __rl: true, mode: 'id', value: 'SVCTEST' },
			checkBalance: false,
			...parameters,
		},
	};
}

/** SMS → Send, one message per item (no Continue On Fail: a failed item fails the execution). */
export function smsSendWorkflow(path: string, credential: Credential): WorkflowJson {
	const send = smsNode('Send SMS', credential, {
		operation: 'send',
		message: '={{ $json.text }}',
		options: { defaultCountry: 'KE', reference: '={{ $json.ref }}' },
	});
	return webhookWorkflow(`Queue · SMS Send · ${path}`, path, send);
}

/** SMS → Send Bulk, one recipient per item. */
export function smsSendBulkWorkflow(path: string, credential: Credential): WorkflowJson {
	const sendBulk = smsNode('Send Bulk', credential, {
		operation: 'sendBulk',
		recipientsSource: 'items',
		variablesSource: 'none',
		message: 'Your parcel is on its way',
		options: { reference: '={{ $json.ref }}' },
	});
	return webhookWorkflow(`Queue · SMS Send Bulk · ${path}`, path, sendBulk);
}

// ---------------------------------------------------------------------------------------------
// Distinct numbers and a reference per execution

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** The i-th number of a block: +2547PB + 6 digits, never ending in 997-999 (the emulator's special endings). */
export function phone(prefix: string, block: number, i: number): string {
	const n = Math.floor(i / 900) * 1000 + (i % 900);
	return `+2547${prefix}${block}${pad(n, 6)}`;
}

export interface Planned {
	ref: string;
	phones: string[];
	body: { items: Array<Record<string, string>> };
}

export function plan(tag: string, kind: 'free' | 'bulk', executions: number, items: number): Planned[] {
	return Array.from({ length: executions }, (_, e) => {
		const ref = `${tag}-${kind}-${e + 1}`;
		const phones = Array.from({ length: items }, (_, i) => phone(kind === 'free' ? '1' : '2', e, i));
		const rows = phones.map((p, i): Record<string, string> => (kind === 'free' ? { phone: p, text: `Queue test ${ref} #${i + 1}`, ref } : { phone: p, ref }));
		return { ref, phones, body: { items: rows } };
	});
}
