import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { SEED_KEYS, SEED_LOGINS, type RunningEmulator } from '../emulator';
import { bothCredentials, type TestCredentials } from '../helpers/credentials';
import { executeNode } from '../helpers/n8n';

export { SEED_KEYS, SEED_LOGINS };
export { waitFor } from '../helpers/waitFor';

type Login = { email: string; password: string };

/** The campaign suites' credentials: the account (empty token, so n8n logs in first) and the Free key. */
export function credentials(url: string, login?: Login, accessToken?: string): TestCredentials {
	return bothCredentials(url, { apiKey: { plan: 'free' }, account: { login, accessToken } });
}

export const byId = (id: unknown) => ({ __rl: true, mode: 'id', value: String(id) });

/** Runs one campaign/account operation and returns its output items. */
export async function run(
	url: string,
	parameters: IDataObject,
	items: IDataObject[] = [{}],
	options: { login?: Login; accessToken?: string; continueOnFail?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const [out] = await executeNode(
		{
			parameters: { resource: 'campaign', ...parameters },
			credentials: credentials(url, options.login, options.accessToken),
			settings: options.continueOnFail ? { onError: 'continueRegularOutput' } : undefined,
		},
		items,
	);
	return out;
}

/** Create parameters: a list of numbers in one item, typed sender ID. */
export function createParameters(extra: IDataObject = {}): IDataObject {
	return {
		operation: 'create',
		name: 'March promotion',
		message: 'Hello from ACME: 20% off this week',
		senderIdText: 'ACMEKE',
		recipientsSource: 'list',
		phoneNumbers: '+254712345678, +254722000111',
		contactGroupIds: '',
		options: {},
		...extra,
	};
}

export async function createCampaign(url: string, extra: IDataObject = {}): Promise<IDataObject> {
	const [item] = await run(url, createParameters(extra));
	return item.json;
}

export async function getCampaign(url: string, id: unknown): Promise<IDataObject> {
	const [item] = await run(url, { operation: 'get', campaignId: byId(id) });
	return item.json;
}

/** The error thrown by `promise` (fails the test when it resolves). */
export async function errorOf(promise: Promise<unknown>): Promise<Error & IDataObject> {
	try {
		await promise;
	} catch (error) {
		return error as Error & IDataObject;
	}
	throw new Error('expected the node to throw');
}

/** Requests the emulator logged, optionally by method and path (exact, or a prefix ending in `*`). */
export function requests(emu: RunningEmulator, method?: string, path?: string) {
	return emu.control
		.requests()
		.filter((r) => (!method || r.method === method) && (!path || (path.endsWith('*') ? r.path.startsWith(path.slice(0, -1)) : r.path === path)));
}

export function credits(emu: RunningEmulator, accountId: string = SEED_LOGINS.demo.accountId): number {
	return emu.control.accounts().find((a) => a.id === accountId)!.credits as number;
}

/** A wall-clock time `ms` from now in Africa/Nairobi (UTC+3, the test workflow's timezone), as n8n's dateTime field holds it. */
export function nairobiWallClock(ms: number): { wall: string; utc: string } {
	const at = new Date(Math.floor((Date.now() + ms) / 1000) * 1000);
	const wall = new Date(at.getTime() + 3 * 3600_000).toISOString().slice(0, 19);
	return { wall, utc: at.toISOString() };
}
