import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { EDITION } from '../platform/edition';
import { PLANS, type PlanLimits, type PlanName } from './service';

export type SvcContext = IExecuteFunctions | ILoadOptionsFunctions;

/** K endpoints use the API key; J endpoints (campaigns, balance) the account login's JWT. */
export type AuthKind = 'apiKey' | 'account';

export const CREDENTIAL_TYPES: Record<AuthKind, string> = {
	apiKey: EDITION.apiKeyCredential.name,
	account: EDITION.accountCredential.name,
};

/** The header SvcMessagingApi's `authenticate` sets to the API key. */
export const API_KEY_HEADER = 'x-api-key';

const CREDENTIAL_NAMES: Record<AuthKind, string> = {
	apiKey: `${EDITION.apiKeyCredential.displayName} (API key)`,
	account: `${EDITION.accountCredential.displayName} (email and password)`,
};

/**
 * Credentials read in this node run, by kind. In n8n each read is a database query and a
 * decryption; a send of 10,000 items made two per request. Keyed by the node's context, so the
 * entries go with the run and never cross executions.
 */
const readInRun = new WeakMap<SvcContext, Map<AuthKind, Promise<IDataObject>>>();

/** The credential of `auth`, read once per node run; a missing credential says which to select. */
export async function getServiceCredentials(this: SvcContext, auth: AuthKind): Promise<IDataObject> {
	let byKind = readInRun.get(this);
	if (!byKind) readInRun.set(this, (byKind = new Map()));
	let read = byKind.get(auth);
	if (!read) {
		read = readCredential(this, auth);
		byKind.set(auth, read);
		read.catch(() => byKind!.delete(auth));
	}
	return await read;
}

async function readCredential(ctx: SvcContext, auth: AuthKind): Promise<IDataObject> {
	let credentials: IDataObject;
	try {
		credentials = await ctx.getCredentials(CREDENTIAL_TYPES[auth]);
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`This operation needs the ${CREDENTIAL_NAMES[auth]} credential: select one in the node's credential field`,
			{ description: (error as Error).message },
		);
	}
	const problem = baseUrlProblem(String(credentials.baseUrl ?? ''));
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The Base URL of the ${CREDENTIAL_NAMES[auth]} credential ${problem}`, {
			description: 'Enter the address of the messaging service alone, e.g. https://api.example.com: the node adds the /api/… paths itself. Nothing was sent.',
		});
	}
	return credentials;
}

/**
 * Why a Base URL cannot address the service, or undefined. The URL itself is never quoted: a
 * pasted link may carry a login or a token.
 */
export function baseUrlProblem(raw: string): string | undefined {
	let url: URL;
	try {
		url = new URL(raw.trim());
	} catch {
		return raw.trim() === '' ? 'is empty' : 'is not a full address starting with https:// (or http://)';
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https:// (or http://)';
	if (url.username || url.password) return 'holds a user name or password: the API key or the login signs in, not the address';
	if (url.search || url.hash) return 'holds a query (?…) or a fragment (#…)';
	if (/\/api\/*$/i.test(url.pathname)) return 'ends with /api: the node adds /api/… itself, so every request would go to /api/api/… and get "Not Found"';
	return undefined;
}

/**
 * The already-read credential in the form n8n's `httpRequestWithAuthentication` accepts, so that
 * it applies the credential's authentication (and the account login) without reading it again.
 * The account login's fresh token is written into the same object, so later requests reuse it.
 */
export function decryptedFor(ctx: SvcContext, auth: AuthKind, data: IDataObject): { credentialsDecrypted: ICredentialsDecrypted } {
	const type = CREDENTIAL_TYPES[auth];
	const chosen = ctx.getNode().credentials?.[type];
	return { credentialsDecrypted: { id: chosen?.id ?? '', name: chosen?.name ?? type, type, data: data as ICredentialsDecrypted['data'] } };
}

export function planLimits(credentials: IDataObject): PlanLimits {
	const plan = (credentials.plan ?? 'free') as PlanName;
	if (plan === 'enterprise') {
		return {
			requestsPerSecond: Math.max(1, Number(credentials.requestsPerSecond) || 1),
			recipientsPerCall: Math.max(1, Number(credentials.recipientsPerCall) || 1),
		};
	}
	return PLANS[plan] ?? PLANS.free;
}

export function baseUrlOf(credentials: IDataObject): string {
	return String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '');
}

/** Whether the API key is a sandbox key (nothing is delivered; the outputs say so). */
export function isSandboxKey(credentials: IDataObject): boolean {
	return String(credentials.apiKey ?? '').startsWith('svc_test_');
}
