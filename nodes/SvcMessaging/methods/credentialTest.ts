import type { ICredentialsDecrypted, ICredentialTestFunctions, IDataObject, INodeCredentialTestResult } from 'n8n-workflow';

import { baseUrlOf } from '../transport/credentials';
import { PATHS } from '../api/paths';
import { redisClient, RedisUnavailable, sharedLimitOf } from '../transport/redis';

/** n8n 2 shows this for a 401 (the service's own answer says only "Unauthorized"). */
export const REFUSED_KEY =
	'The service refused this API key (401 UNAUTHORIZED). Check the key under Settings → API Keys in the dashboard; a revoked key stays refused.';

/** How long the service may take to answer the Test. */
const TEST_TIMEOUT_MS = 15_000;

/**
 * The SVC Messaging API credential's Test: the key against the service (its sender-ID list: cheap
 * and keyed), then, with "Use Redis" on, a PING to that Redis, since a send, the Do-Not-Send List
 * and a Retry's ledger all need it and would otherwise fail only at the first run.
 */
export async function svcMessagingApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	const data = (credential.data ?? {}) as IDataObject;
	const baseUrl = baseUrlOf(data);
	let status: number;
	try {
		// fetch, not this.helpers.request: the credential-test context offers only that legacy helper,
		// which n8n's community-node lint refuses.
		const answer = await fetch(`${baseUrl}${PATHS.senderIds}`, { headers: { 'x-api-key': String(data.apiKey ?? '') }, signal: AbortSignal.timeout(TEST_TIMEOUT_MS) });
		status = answer.status;
		await answer.body?.cancel();
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		return { status: 'Error', message: `Could not reach the service at ${baseUrl || '(no Base URL)'}: ${cause?.code ?? cause?.message ?? (error as Error).message}` };
	}
	if (status === 401) return { status: 'Error', message: REFUSED_KEY };
	if (status < 200 || status >= 300) return { status: 'Error', message: `The service at ${baseUrl} answered ${status} to the API key` };
	try {
		const shared = sharedLimitOf(data);
		if (!shared) return { status: 'OK', message: 'Connection tested successfully' };
		const client = await redisClient(shared, 'the credential test');
		await client.ping();
		return { status: 'OK', message: 'Connection tested successfully (the service and Redis)' };
	} catch (error) {
		if (error instanceof RedisUnavailable) return { status: 'Error', message: `The API key works, but Redis does not: ${error.message}. ${error.description.replace(/ Nothing was sent for this item\./, '')}` };
		return { status: 'Error', message: `The API key works, but Redis does not: ${(error as Error).message}` };
	}
}
