import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { accountCredentials, apiKeyCredentials } from '../helpers/credentials';

/**
 * A stand-in for n8n's execute context in the unit tier: parameters, credentials and the answers
 * of n8n's request helper are given, and every request the package makes is recorded. The
 * integration tests run the same code in n8n-core's real contexts against the emulator.
 */
export interface FakeOptions {
	parameters?: IDataObject;
	credentials?: Record<string, IDataObject>;
	continueOnFail?: boolean;
	mode?: string;
	executionId?: string;
	/** the service's answer to one request (status 200 unless given) */
	answer?: (request: IHttpRequestOptions) => { statusCode?: number; body: unknown } | Promise<{ statusCode?: number; body: unknown }>;
	items?: number;
}

export interface RecordedRequest {
	method: string;
	url: string;
	qs?: IDataObject;
	body?: unknown;
	credentialType: string;
}

/** n8n's processed-data store as a set per node (the integration tier plays its rows: test/helpers/processedData.ts). */
const processed = new Map<string, Set<string>>();

export function fakeContext(options: FakeOptions = {}) {
	const requests: RecordedRequest[] = [];
	const credentialReads: string[] = [];
	const node = { id: 'unit-node', name: 'SVC Messaging', type: 'n8n-nodes-svc-messaging.svcMessaging', typeVersion: 1, parameters: options.parameters ?? {} } as unknown as INode;
	const parameter = (name: string, fallback: unknown) =>
		name.split('.').reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], options.parameters ?? {}) ?? fallback;
	const answer = async (credentialType: string, request: IHttpRequestOptions) => {
		requests.push({ method: String(request.method), url: request.url, qs: request.qs as IDataObject, body: request.body, credentialType });
		const { statusCode = 200, body } = await (options.answer?.(request) ?? { body: { success: true, data: {} } });
		if (statusCode >= 400 && !request.ignoreHttpStatusErrors) {
			throw Object.assign(new Error(`HTTP ${statusCode}`), { httpCode: String(statusCode), context: { data: body } });
		}
		return { statusCode, body, headers: {} };
	};
	const ctx = {
		getNode: () => node,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) => parameter(name, fallback),
		getInputData: () => Array.from({ length: options.items ?? 1 }, () => ({ json: {} })),
		continueOnFail: () => options.continueOnFail === true,
		getCredentials: async (type: string) => {
			credentialReads.push(type);
			const data = options.credentials?.[type];
			if (!data) throw new Error(`no ${type} credential`);
			return { ...data };
		},
		getWorkflow: () => ({ id: 'unit-workflow' }),
		getExecutionId: () => options.executionId ?? 'unit-execution',
		getMode: () => options.mode ?? 'manual',
		getWorkflowDataProxy: () => ({ $runIndex: 0 }),
		getTimezone: () => 'UTC',
		addExecutionHints: () => undefined,
		logger: { debug: () => undefined, warn: () => undefined, info: () => undefined, error: () => undefined },
		helpers: {
			httpRequestWithAuthentication: async (credentialType: string, request: IHttpRequestOptions) => await answer(credentialType, request),
			// API-key requests carry the credential's header themselves (transport/request.ts).
			httpRequest: async (request: IHttpRequestOptions) =>
				await answer((request.headers as IDataObject | undefined)?.['x-api-key'] ? 'svcMessagingApi' : 'none', request),
			checkProcessedAndRecord: async (items: string[]) => {
				const marks = processed.get(node.id) ?? processed.set(node.id, new Set()).get(node.id)!;
				const out = { new: [] as string[], processed: [] as string[] };
				for (const item of items) (marks.has(item) ? out.processed : out.new).push(item);
				for (const item of out.new) marks.add(item);
				return out;
			},
			removeProcessed: async (items: string[]) => {
				for (const item of items) processed.get(node.id)?.delete(item);
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, requests, credentialReads, node };
}

export const API_KEY = apiKeyCredentials('http://svc.test', { apiKey: 'svc_live_unit' });

/** The account credential of the unit tests (a token already held: no login). */
export const accountCredential = (baseUrl = 'http://svc.test') => accountCredentials(baseUrl, { login: { email: 'a@b.c', password: 'p' }, accessToken: 't' });
