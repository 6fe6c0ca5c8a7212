import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { API_KEY_HEADER, baseUrlOf, decryptedFor, getServiceCredentials, planLimits, CREDENTIAL_TYPES, type AuthKind, type SvcContext } from './credentials';
import { limiterFault, LOGIN_CODES, NETWORK_ERROR, LOGIN_FAILED, LOGIN_RATE_LIMITED, REDIS_UNAVAILABLE, serviceError, transportError, withErrorCode } from './errors';
import { laneOf } from './lanes';
import { limiterFor, type KeyLimiter } from './limiter';
import { rateReadingOf } from './rateReading';
import { RedisUnavailable, sharedLimitOf } from './redis';

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	auth: AuthKind;
	body?: IDataObject;
	qs?: IDataObject;
	itemIndex?: number;
	/**
	 * Called once, in the key limiter's slot, right before the request first leaves (the send
	 * ledger's "under way" mark). Its failure fails the request unsent.
	 */
	beforeSend?: BeforeSend;
}

export type BeforeSend = () => Promise<void>;

const MAX_RATE_LIMIT_RETRIES = 5;
const MAX_SAFE_RETRIES = 3;
const REQUEST_TIMEOUT_MS = 30_000;
/** Network failures where the request never reached the service, so repeating it is safe. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function retryAfterMs(headers: IDataObject | undefined, attempt: number): number {
	const value = Number(headers?.['retry-after']);
	if (Number.isFinite(value) && value >= 0) return value * 1000;
	return backoffMs(attempt);
}

function backoffMs(attempt: number): number {
	const base = Math.min(8000, 250 * 2 ** (attempt - 1));
	return base / 2 + Math.random() * (base / 2);
}

/**
 * The account credential's preAuthentication marks a failed login with a LOGIN_* code
 * (`errorCode`); n8n wraps that error in a NodeApiError and keeps the code as its httpCode.
 */
function loginFailureOf(error: unknown): { code: string; message: string } | undefined {
	const e = error as { httpCode?: unknown; errorCode?: unknown; message?: unknown };
	const code = e?.httpCode ?? e?.errorCode;
	return typeof code === 'string' && LOGIN_CODES.includes(code) && typeof e.message === 'string' ? { code, message: e.message } : undefined;
}

const LOGIN_HINTS: Record<string, string> = {
	[LOGIN_FAILED]: 'Open the SVC Messaging Account API credential and check the email and password (the dashboard login).',
	[LOGIN_RATE_LIMITED]: 'The login was tried again after the wait the service asked for, and was still rate limited. Nothing was sent; run the node again later.',
};
const LOGIN_UNAVAILABLE_HINT = 'The login was tried again and the service still did not answer it. Nothing was sent; run the node again later.';

function networkCodeOf(error: unknown): string {
	const candidates = [
		(error as { cause?: { code?: unknown } })?.cause?.code,
		(error as { errorResponse?: { code?: unknown } })?.errorResponse?.code,
		(error as { code?: unknown })?.code,
		// n8n's request helper wraps a refused connection in a NodeApiError whose httpCode is the code.
		(error as { httpCode?: unknown })?.httpCode,
	];
	const code = candidates.find((c) => typeof c === 'string' && c !== '' && !/^\d+$/.test(c));
	return (code as string | undefined) ?? NETWORK_ERROR;
}

function sharedLimitError(ctx: SvcContext, error: RedisUnavailable, itemIndex?: number): NodeOperationError {
	return withErrorCode(new NodeOperationError(ctx.getNode(), error.message, { itemIndex, description: error.description }), REDIS_UNAVAILABLE);
}

/** The key's limiter: in this process, or shared through Redis when the credential says so. */
async function keyLimiter(this: SvcContext, credentials: IDataObject, itemIndex?: number): Promise<KeyLimiter> {
	try {
		const apiKey = String(credentials.apiKey ?? '');
		return await limiterFor(baseUrlOf(credentials), apiKey, planLimits(credentials), sharedLimitOf(credentials), rateReadingOf(credentials));
	} catch (error) {
		if (error instanceof RedisUnavailable) throw sharedLimitError(this, error, itemIndex);
		throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
	}
}

/**
 * Connects the key's limiter before a send starts, so that a shared limit whose Redis cannot be
 * reached fails the node with that one clear error before anything is sent. With Continue On Fail
 * every item reports it instead.
 */
export async function connectKeyLimiter(this: IExecuteFunctions): Promise<void> {
	try {
		await keyLimiter.call(this, await getServiceCredentials.call(this, 'apiKey'));
	} catch (error) {
		// Already a NodeOperationError (keyLimiter, getServiceCredentials), which this returns as it is.
		if (!this.continueOnFail()) throw new NodeOperationError(this.getNode(), error as Error);
	}
}

/**
 * The one function through which the nodes call the service. API-key requests pass through the
 * key's shared limiter; a 429 is retried after Retry-After and slows the limiter. A POST that may
 * have reached the service (timeout, dropped connection, 5xx) is never repeated.
 */
export async function apiRequest<T = IDataObject>(this: SvcContext, request: ApiRequest): Promise<T> {
	const credentials = await getServiceCredentials.call(this, request.auth);
	const what = `${request.method} ${request.path}`;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrlOf(credentials)}${request.path}`,
		body: request.body,
		qs: request.qs,
		json: true,
		timeout: REQUEST_TIMEOUT_MS,
		returnFullResponse: true,
	};
	// The account credential's re-login on 401 happens only when n8n sees the status as an error;
	// API-key requests read every status themselves (Retry-After needs the headers).
	if (request.auth === 'apiKey') options.ignoreHttpStatusErrors = true;
	const limiter = request.auth === 'apiKey' ? await keyLimiter.call(this, credentials, request.itemIndex) : undefined;
	const idempotent = request.method === 'GET';
	const credentialType = CREDENTIAL_TYPES[request.auth];
	// Account requests only: it reads the node (a deep copy in n8n) and API-key requests never use it.
	const readAlready = request.auth === 'account' ? decryptedFor(this, request.auth, credentials) : undefined;

	// API-key requests carry the header the credential declares (SvcMessagingApi.authenticate, checked
	// equal by test/unit/credentials.test.ts) through n8n's request helper: n8n's authenticate would
	// evaluate its expression again for every request, a third of the node's CPU per SMS.
	const apiKeyHeaders = request.auth === 'apiKey' ? { [API_KEY_HEADER]: String(credentials.apiKey ?? '') } : undefined;

	let beforeSend = request.beforeSend;
	let beforeSendError: unknown;
	for (let attempt = 1; ; attempt++) {
		let sentAt: number | undefined;
		const send = async () => {
			if (beforeSend) {
				const once = beforeSend;
				beforeSend = undefined;
				await once().catch((error: unknown) => {
					beforeSendError = error;
					throw error;
				});
			}
			// A 429 read while the mark was made: its pause holds this request too (the service asked for it).
			for (let left = limiter?.pausedForMs() ?? 0; left > 0; left = limiter!.pausedForMs()) await sleep(left);
			// When it left: a 429 tells the spaced reading where the service's second ends (keyLimiter.ts).
			sentAt = Date.now();
			return (apiKeyHeaders
				? await this.helpers.httpRequest({ ...options, headers: { ...apiKeyHeaders } })
				: await this.helpers.httpRequestWithAuthentication.call(this, credentialType, { ...options, headers: {} }, readAlready)) as IN8nHttpFullResponse;
		};
		let response: IN8nHttpFullResponse;
		try {
			response = limiter ? await limiter.schedule(send, laneOf(this)) : await send();
		} catch (error) {
			// Nothing left: the caller (the send round) knows why from its own call.
			if (beforeSendError !== undefined) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: request.itemIndex });
			if (error instanceof RedisUnavailable) throw sharedLimitError(this, error, request.itemIndex);
			// The limiter failed before it ran the request: it never left (sentAt is set as it leaves).
			if (limiter && sentAt === undefined) throw limiterFault(this.getNode(), { itemIndex: request.itemIndex, what });
			const httpCode = Number((error as { httpCode?: unknown }).httpCode);
			if (httpCode >= 400) {
				// Account-credential requests: n8n already tried a fresh login for a 401.
				const body = (error as { context?: { data?: unknown } }).context?.data;
				if (httpCode >= 500 && idempotent && attempt < MAX_SAFE_RETRIES) {
					await sleep(backoffMs(attempt));
					continue;
				}
				throw serviceError(this.getNode(), httpCode, body, { itemIndex: request.itemIndex, what });
			}
			const loginFailure = loginFailureOf(error);
			if (loginFailure) {
				// The credential already retried what a retry can fix (5xx, 429, no answer): this is final.
				const failure = new NodeOperationError(this.getNode(), loginFailure.message, {
					itemIndex: request.itemIndex,
					description: LOGIN_HINTS[loginFailure.code] ?? LOGIN_UNAVAILABLE_HINT,
				});
				throw withErrorCode(failure, loginFailure.code);
			}
			const code = networkCodeOf(error);
			const notSent = NOT_SENT_CODES.has(code);
			if ((idempotent || notSent) && attempt < MAX_SAFE_RETRIES) {
				await sleep(backoffMs(attempt));
				continue;
			}
			throw transportError(this.getNode(), {
				itemIndex: request.itemIndex,
				what,
				mayHaveBeenProcessed: !idempotent && !notSent,
			});
		}
		const { statusCode, body, headers } = response;
		if (statusCode === 429 && limiter && attempt <= MAX_RATE_LIMIT_RETRIES) {
			const waitAlone = limiter.penalize(retryAfterMs(headers as IDataObject, attempt), sentAt);
			if (waitAlone > 0) await sleep(waitAlone);
			continue;
		}
		if (statusCode >= 500 && idempotent && attempt < MAX_SAFE_RETRIES) {
			await sleep(backoffMs(attempt));
			continue;
		}
		if (statusCode >= 400) {
			throw serviceError(this.getNode(), statusCode, body, { itemIndex: request.itemIndex, what });
		}
		limiter?.recover();
		return body as T;
	}
}

/** `{ success, data }` → data. Campaign endpoints answer bare objects and skip this. */
export function unwrap<T = IDataObject>(body: unknown): T {
	const envelope = body as { success?: unknown; data?: unknown } | undefined;
	if (envelope && typeof envelope === 'object' && 'success' in envelope && 'data' in envelope) {
		return envelope.data as T;
	}
	return body as T;
}
