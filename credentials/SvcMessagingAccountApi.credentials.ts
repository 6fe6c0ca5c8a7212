import type {
	IAuthenticateGeneric,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { EDITION } from '../nodes/SvcMessaging/platform/edition';
import { LOGIN_FAILED, LOGIN_RATE_LIMITED, LOGIN_UNAVAILABLE } from '../nodes/SvcMessaging/transport/errors';
import { LOGIN_RETRY } from '../nodes/SvcMessaging/transport/loginRetry';

/** A token, or the error with whether trying again may help (and the wait the service asked for). */
type LoginAnswer = { accessToken: string } | { error: Error; transient: boolean; retryAfterMs?: number };

/**
 * An error the node decides on by its code (transport/errors.ts LOGIN_*), never by this text: n8n
 * wraps it in a NodeApiError whose httpCode it takes from `errorCode`.
 */
function loginError(code: string, message: string): Error {
	return Object.assign(new Error(`SVC Messaging login failed${message}`), { errorCode: code });
}

/** The 429's Retry-After in ms; Infinity when it is longer than LOGIN_RETRY.maxRetryAfterMs. */
function retryAfterMsOf(headers: IDataObject | undefined): number | undefined {
	const seconds = Number(headers?.['retry-after']);
	if (headers?.['retry-after'] === undefined || !Number.isFinite(seconds) || seconds < 0) return undefined;
	return seconds * 1000 <= LOGIN_RETRY.maxRetryAfterMs ? seconds * 1000 : Infinity;
}

/**
 * One login: the token, or the error with how long to wait before trying again (none: final). Status
 * errors are read rather than thrown, and a network error is replaced by one of ours, so the request
 * (and its password) never travels inside an error object.
 */
async function loginOnce(ctx: IHttpRequestHelper, baseUrl: string, credentials: ICredentialDataDecryptedObject): Promise<LoginAnswer> {
	let response: { statusCode: number; body: IDataObject; headers?: IDataObject };
	try {
		response = (await ctx.helpers.httpRequest({
			method: 'POST',
			url: `${baseUrl}/api/auth/login`,
			body: { email: credentials.email, password: credentials.password },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})) as typeof response;
	} catch {
		// No system code (ECONNREFUSED, …) in the text: n8n would replace the whole message with its own.
		return {
			error: loginError(LOGIN_UNAVAILABLE, ': the service could not be reached, so the email and password were not checked. Try again later, or check the Base URL.'),
			transient: true,
		};
	}
	const data = response.body?.data as IDataObject | undefined;
	const { statusCode } = response;
	if (statusCode < 400 && typeof data?.accessToken === 'string') return { accessToken: data.accessToken };
	const serviceCode = (response.body?.error as IDataObject | undefined)?.code;
	const status = `(HTTP ${statusCode}${serviceCode ? ` ${String(serviceCode)}` : ''})`;
	if (statusCode === 429) {
		return {
			error: loginError(LOGIN_RATE_LIMITED, ` ${status}: the service rate limited the login, so the email and password were not checked. Try again later.`),
			transient: true,
			retryAfterMs: retryAfterMsOf(response.headers),
		};
	}
	if (statusCode >= 500) {
		return {
			error: loginError(LOGIN_UNAVAILABLE, ` ${status}: the service was unavailable, so the email and password were not checked. Try again later.`),
			transient: true,
		};
	}
	// A refused email or password is final: repeating it would only risk locking the account.
	return { error: loginError(LOGIN_FAILED, ` ${status}: check the email and password of the SVC Messaging Account API credential`), transient: false };
}

export class SvcMessagingAccountApi implements ICredentialType {
	name = EDITION.accountCredential.name;

	displayName = EDITION.accountCredential.displayName;

	icon = { light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' } as const;

	documentationUrl = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the messaging service, without a trailing path',
			hint: "The service's API address from its developer documentation or the dashboard (where API keys are created); the same for both SVC Messaging credentials",
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			required: true,
			description: 'The dashboard login used for campaigns and the account balance',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			// Filled by preAuthentication; n8n keeps it and logs in again when a request gets a 401.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
		for (let attempt = 1; ; attempt++) {
			const answer = await loginOnce(this, baseUrl, credentials);
			if ('accessToken' in answer) return { accessToken: answer.accessToken };
			const waitMs = answer.retryAfterMs ?? LOGIN_RETRY.backoffMs[attempt - 1];
			if (!answer.transient || attempt >= LOGIN_RETRY.attempts || !Number.isFinite(waitMs)) throw answer.error;
			await sleep(waitMs);
		}
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/account/balance',
			method: 'GET',
		},
	};
}
