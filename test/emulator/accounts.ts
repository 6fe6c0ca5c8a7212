/** Accounts and API keys from a seed or the control surface. */
import { randomBytes } from 'crypto';

import { ENTERPRISE_DEFAULT_LIMITS, GENERATED_ACCOUNT_PREFIX, GENERATED_KEY_PREFIX } from './assumptions';
import { ApiError, badRequest, iso, newId } from './http';
import { PLAN_LIMITS, SENDER_ID_PATTERN, SIGNUP_CREDITS } from './limits';
import type { Account, ApiKeyRecord, EmulatorState, SeedAccount, SeedApiKey, SeedSenderId, SenderIdRecord, Tier } from './state';
import { isObject, optBoolean, optNumber, optString, optStringArray, reqString, type Obj } from './validate';

const TIERS: Tier[] = ['free', 'starter', 'business', 'enterprise'];

function checkTier(value: unknown, name: string): Tier {
	if (!TIERS.includes(value as Tier)) throw badRequest(`${name} must be one of ${TIERS.join(', ')}`);
	return value as Tier;
}

function keyRecord(accountId: string, input: SeedApiKey): ApiKeyRecord {
	const tier = checkTier(input.tier, 'apiKeys[].tier');
	const plan = tier === 'enterprise' ? ENTERPRISE_DEFAULT_LIMITS : PLAN_LIMITS[tier];
	return {
		key: input.key,
		accountId,
		tier,
		label: input.label ?? null,
		requestsPerSecond: input.requestsPerSecond ?? plan.requestsPerSecond,
		recipientsPerCall: input.recipientsPerCall ?? plan.recipientsPerCall,
	};
}

function senderRecord(input: SeedSenderId, now: number): SenderIdRecord {
	if (!SENDER_ID_PATTERN.test(input.senderId)) throw badRequest(`senderIds: '${input.senderId}' is not 1-11 of A-Z0-9`);
	return {
		id: newId('sid'),
		senderId: input.senderId,
		status: input.status ?? 'ACTIVE',
		type: input.type ?? (/^\d+$/.test(input.senderId) ? 'NUMERIC' : 'ALPHANUMERIC'),
		countries: [...input.countries],
		createdAt: now,
	};
}

function contactGroups(groups: Record<string, string[]> | undefined): Map<number, string[]> {
	return new Map(Object.entries(groups ?? {}).map(([id, members]) => [Number(id), [...members]]));
}

/** Validates the JSON shape of an account given to the control surface or a seed. */
export function parseAccountInput(raw: unknown): SeedAccount {
	if (!isObject(raw)) throw badRequest('account must be an object');
	const id = optString(raw, 'id') ?? `${GENERATED_ACCOUNT_PREFIX}${randomBytes(6).toString('hex')}`;
	const keys = raw.apiKeys ?? [{ key: `${GENERATED_KEY_PREFIX}${randomBytes(12).toString('hex')}`, tier: 'free' }];
	if (!Array.isArray(keys) || keys.some((k) => !isObject(k) || typeof k.key !== 'string' || !k.key)) {
		throw badRequest('apiKeys must be an array of {key, tier}');
	}
	return {
		id,
		email: reqString(raw, 'email'),
		password: reqString(raw, 'password'),
		credits: optNumber(raw, 'credits', 0),
		defaultSenderId: optString(raw, 'defaultSenderId'),
		senderIds: parseSenderIds(raw),
		apiKeys: keys as SeedApiKey[],
		chatRegistered: optBoolean(raw, 'chatRegistered'),
		optIns: optStringArray(raw, 'optIns'),
		contactGroups: raw.contactGroups as Record<string, string[]> | undefined,
		webhookUrl: optString(raw, 'webhookUrl') ?? null,
		webhookSecret: optString(raw, 'webhookSecret') ?? null,
	};
}

function parseSenderIds(raw: Obj): SeedSenderId[] | undefined {
	const list = raw.senderIds;
	if (list === undefined || list === null) return undefined;
	if (!Array.isArray(list) || list.some((s) => !isObject(s) || typeof s.senderId !== 'string' || !Array.isArray(s.countries))) {
		throw badRequest('senderIds must be an array of {senderId, countries, type?, status?}');
	}
	return list as SeedSenderId[];
}

export function createAccount(state: EmulatorState, input: SeedAccount, now: number): Account {
	if (state.accounts.has(input.id)) throw new ApiError(409, 'ACCOUNT_EXISTS', `Account '${input.id}' already exists`);
	const emailTaken = [...state.accounts.values()].some((a) => a.email.toLowerCase() === input.email.toLowerCase());
	if (emailTaken) throw new ApiError(409, 'ACCOUNT_EXISTS', `An account with email '${input.email}' already exists`);
	const keys = (input.apiKeys ?? []).map((k) => keyRecord(input.id, k));
	for (const k of keys) {
		if (state.keys.has(k.key)) throw new ApiError(409, 'API_KEY_EXISTS', `API key ending '${k.key.slice(-4)}' already exists`);
	}
	const senderIds = (input.senderIds ?? []).map((s) => senderRecord(s, now));
	const account: Account = {
		id: input.id,
		email: input.email,
		password: input.password,
		credits: input.credits ?? SIGNUP_CREDITS,
		creditsUpdatedAt: now,
		defaultSenderId: input.defaultSenderId ?? senderIds[0]?.senderId ?? 'SVCTEST',
		senderIds,
		chatRegistered: input.chatRegistered ?? false,
		optIns: new Set(input.optIns ?? []),
		contactGroups: contactGroups(input.contactGroups),
		webhookUrl: input.webhookUrl ?? null,
		webhookSecret: input.webhookSecret ?? null,
		createdAt: now,
	};
	state.accounts.set(account.id, account);
	for (const k of keys) state.keys.set(k.key, k);
	return account;
}

/** Applies a control-surface patch: credits, webhookUrl, webhookSecret, chatRegistered, tier, senderIds, ... */
export function updateAccount(state: EmulatorState, account: Account, raw: unknown, now: number): Account {
	if (!isObject(raw)) throw badRequest('patch must be an object');
	const credits = optNumber(raw, 'credits', 0);
	const chatRegistered = optBoolean(raw, 'chatRegistered');
	const defaultSenderId = optString(raw, 'defaultSenderId');
	const senderIds = parseSenderIds(raw)?.map((s) => senderRecord(s, now));
	const tier = raw.tier === undefined ? undefined : checkTier(raw.tier, 'tier');
	for (const field of ['webhookUrl', 'webhookSecret'] as const) {
		if (raw[field] !== undefined && raw[field] !== null && typeof raw[field] !== 'string') {
			throw badRequest(`${field} must be a string or null`);
		}
	}
	if (credits !== undefined) {
		account.credits = credits;
		account.creditsUpdatedAt = now;
	}
	if (chatRegistered !== undefined) account.chatRegistered = chatRegistered;
	if (defaultSenderId !== undefined) account.defaultSenderId = defaultSenderId;
	if (senderIds) account.senderIds = senderIds;
	if (raw.webhookUrl !== undefined) account.webhookUrl = (raw.webhookUrl as string | null) || null;
	if (raw.webhookSecret !== undefined) account.webhookSecret = (raw.webhookSecret as string | null) || null;
	if (raw.contactGroups !== undefined) account.contactGroups = contactGroups(raw.contactGroups as Record<string, string[]>);
	if (tier) {
		for (const key of state.keys.values()) {
			if (key.accountId === account.id) Object.assign(key, keyRecord(account.id, { key: key.key, tier, label: key.label ?? undefined }));
		}
	}
	return account;
}

/** What the control surface shows of an account (no password; the secret only as a flag). */
export function accountView(state: EmulatorState, a: Account) {
	return {
		id: a.id,
		email: a.email,
		credits: a.credits,
		creditsUpdatedAt: iso(a.creditsUpdatedAt),
		defaultSenderId: a.defaultSenderId,
		senderIds: a.senderIds.map((s) => ({ senderId: s.senderId, type: s.type, status: s.status, countries: [...s.countries] })),
		apiKeys: [...state.keys.values()]
			.filter((k) => k.accountId === a.id)
			.map((k) => ({ key: k.key, tier: k.tier, label: k.label, requestsPerSecond: k.requestsPerSecond, recipientsPerCall: k.recipientsPerCall })),
		chatRegistered: a.chatRegistered,
		optIns: [...a.optIns],
		contactGroups: Object.fromEntries(a.contactGroups),
		webhookUrl: a.webhookUrl,
		hasWebhookSecret: a.webhookSecret !== null,
		createdAt: iso(a.createdAt),
	};
}
