/**
 * Every credential the tests hand a node, built in one place. Defaults are the emulator's seed: the
 * sandbox key of the chosen plan (Business unless told) and the demo account's login, so a test names
 * only what it is about (another plan, a wrong key, a webhook secret, the shared limit's Redis).
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { SEED_KEYS, SEED_LOGINS } from '../emulator/seed';

export type TestCredentials = Partial<Record<'svcMessagingApi' | 'svcMessagingAccountApi', ICredentialDataDecryptedObject>>;

export type Plan = 'free' | 'starter' | 'business' | 'enterprise';

export interface SharedLimitRedis {
	port: number;
	host?: string;
	prefix?: string;
	user?: string;
	password?: string;
}

/** The strict reading of the plan's rate (never N + 1 in any 1,000 ms): what the limiter tests hold to. */
export const STRICT: ICredentialDataDecryptedObject = { rateLimitReading: 'strict' };

export interface ApiKeyOptions {
	/** default 'business' */
	plan?: Plan;
	/** default: the seed's key of `plan` (a live key for Enterprise, sandbox keys otherwise) */
	apiKey?: string;
	webhookSecret?: string;
	/** turns the shared rate limit on, through this Redis */
	redis?: SharedLimitRedis;
	/** any other field of the credential, as n8n stores it (e.g. requestsPerSecond) */
	extra?: ICredentialDataDecryptedObject;
}

export interface AccountOptions {
	/** default: the seed's demo account */
	login?: { email: string; password: string };
	/** default '' so n8n logs in (preAuthentication) before the first request */
	accessToken?: string;
}

/** The API key credential's data (svcMessagingApi). */
export function apiKeyData(url: string, options: ApiKeyOptions = {}): ICredentialDataDecryptedObject {
	const plan = options.plan ?? 'business';
	const data: ICredentialDataDecryptedObject = { baseUrl: url, apiKey: options.apiKey ?? SEED_KEYS[plan], plan };
	if (options.webhookSecret !== undefined) data.webhookSecret = options.webhookSecret;
	if (options.redis) {
		const { host = '127.0.0.1', port, prefix, user, password } = options.redis;
		Object.assign(data, { sharedRateLimit: true, redisHost: host, redisPort: port });
		if (prefix !== undefined) data.redisPrefix = prefix;
		if (user !== undefined) data.redisUser = user;
		if (password !== undefined) data.redisPassword = password;
	}
	return { ...data, ...options.extra };
}

/** The account credential's data (svcMessagingAccountApi). */
export function accountData(url: string, options: AccountOptions = {}): ICredentialDataDecryptedObject {
	const { email, password } = options.login ?? SEED_LOGINS.demo;
	return { baseUrl: url, email, password, accessToken: options.accessToken ?? '' };
}

export function apiKeyCredentials(url: string, options: ApiKeyOptions = {}): TestCredentials {
	return { svcMessagingApi: apiKeyData(url, options) };
}

export function accountCredentials(url: string, options: AccountOptions = {}): TestCredentials {
	return { svcMessagingAccountApi: accountData(url, options) };
}

/** Both credentials, for operations that need the account (campaigns, balance) next to the key. */
export function bothCredentials(url: string, options: { apiKey?: ApiKeyOptions; account?: AccountOptions } = {}): TestCredentials {
	return { ...apiKeyCredentials(url, options.apiKey), ...accountCredentials(url, options.account) };
}
