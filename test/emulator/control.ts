/** The test-control surface: in-process methods and the same operations over HTTP under /__emulator/. */
import { holdCarrier } from './lifecycle';
import { accountView, createAccount, parseAccountInput, updateAccount } from './accounts';
import { CONTROL_PREFIX } from './assumptions';
import { addFault, type FaultInput } from './faults';
import { parseLatency, type LatencyProfile } from './latency';
import { ApiError, badRequest, iso, notFound, ok } from './http';
import { TEMPLATE_STATUSES } from './limits';
import { parseRateLimitMode, parseSecondOffset, type RateLimitMode } from './rateLimit';
import { route, type Route } from './router';
import type { Runtime } from './runtime';
import { defaultSeed } from './seed';
import {
	clearState,
	createState,
	type ChatMessage,
	type Fault,
	type RequestRecord,
	type Seed,
	type SeedAccount,
	type SmsMessage,
	type TemplateStatus,
	type Tier,
	type WebhookAttempt,
} from './state';
import { setTemplateStatus, templateView } from './templates';
import { isObject, objectBody, optNumber, optString, reqString } from './validate';

export type AccountView = ReturnType<typeof accountView>;
export type TemplateView = ReturnType<typeof templateView>;
export type NewAccount = Partial<SeedAccount> & { email: string; password: string };
export interface AccountPatch {
	credits?: number;
	webhookUrl?: string | null;
	webhookSecret?: string | null;
	chatRegistered?: boolean;
	tier?: Tier;
	defaultSenderId?: string;
	senderIds?: SeedAccount['senderIds'];
	contactGroups?: Record<string, string[]>;
}
export interface MessageFilter {
	accountId?: string;
	batchId?: string;
	campaignId?: number;
	phoneNumber?: string;
	status?: string;
}
export interface WebhookFilter {
	messageId?: string;
	event?: string;
	url?: string;
}

export function messageRecord(m: SmsMessage) {
	return {
		...m,
		failureReason: m.failureReason && { ...m.failureReason },
		createdAt: iso(m.createdAt) as string,
		scheduledAt: iso(m.scheduledAt),
		sentAt: iso(m.sentAt),
		deliveredAt: iso(m.deliveredAt),
		finalAt: iso(m.finalAt),
	};
}
export type MessageRecord = ReturnType<typeof messageRecord>;
export type ChatMessageRecord = Omit<ChatMessage, 'createdAt'> & { createdAt: string };

export interface EmulatorControl {
	/** Back to `seed` (default: defaultSeed()); drops every record, timer, fault and rate-limit bucket. */
	reset(seed?: Seed): void;
	addAccount(account: NewAccount): AccountView;
	updateAccount(id: string, patch: AccountPatch): AccountView;
	accounts(): AccountView[];
	messages(filter?: MessageFilter): MessageRecord[];
	chatMessages(filter?: { accountId?: string; phoneNumber?: string }): ChatMessageRecord[];
	webhookAttempts(filter?: WebhookFilter): WebhookAttempt[];
	requests(): RequestRecord[];
	clearRequests(): void;
	/** accountId defaults to the first account of the seed */
	addOptIn(input: { phoneNumber: string; accountId?: string }): void;
	/** Moves the emulator clock forward, running every task due in the span in time order. */
	advance(ms: number): Promise<{ now: string }>;
	now(): string;
	addFault(fault: FaultInput): Fault;
	faults(): Fault[];
	clearFaults(): void;
	/** Every access token issued so far is rejected from now on. */
	expireTokens(): void;
	/** Carrier hold on: messages stay SENT with no final report; off: the held ones end now. */
	holdCarrier(hold: boolean): { held: boolean; released: number };
	/** From now on, no delivery report is posted for messages to these numbers (replaces the list; [] ends it). */
	loseReports(phoneNumbers: string[]): { phoneNumbers: string[] };
	reviewTemplate(name: string, status: TemplateStatus, reason?: string, accountId?: string): TemplateView;
	/** How the per-key rate limit counts (kept by reset); setting it empties every key's count. */
	rateLimitMode(): RateLimitMode;
	/** `secondOffsetMs` (fixed-second: where its seconds begin past the whole second) stays as it was when not given. */
	setRateLimitMode(mode: RateLimitMode, secondOffsetMs?: number): { mode: RateLimitMode; secondOffsetMs: number };
	/** The service's distance (latency.ts; kept by reset). */
	latency(): LatencyProfile;
	setLatency(latency: unknown): LatencyProfile;
}

const copy = <T>(value: T): T => structuredClone(value);

export function createControl(rt: Runtime): EmulatorControl {
	const { state, clock } = rt;
	const account = (id: string) => {
		const found = state.accounts.get(id);
		if (!found) throw notFound(`Account '${id}' not found`);
		return found;
	};
	const firstAccountId = () => state.accounts.keys().next().value as string | undefined;

	return {
		reset(seed = defaultSeed()) {
			if (!isObject(seed) || !Array.isArray(seed.accounts)) throw badRequest('seed must be {accounts: [...]}');
			const fresh = createState();
			const now = clock.now();
			for (const input of seed.accounts) createAccount(fresh, parseAccountInput(input), now);
			clock.clear();
			clearState(state);
			state.accounts = fresh.accounts;
			state.keys = fresh.keys;
		},
		addAccount(input) {
			return accountView(state, createAccount(state, parseAccountInput(input), clock.now()));
		},
		updateAccount(id, patch) {
			return accountView(state, updateAccount(state, account(id), patch, clock.now()));
		},
		accounts() {
			return [...state.accounts.values()].map((a) => accountView(state, a));
		},
		messages(filter = {}) {
			return [...state.messages.values()]
				.filter(
					(m) =>
						(filter.accountId === undefined || m.accountId === filter.accountId) &&
						(filter.batchId === undefined || m.batchId === filter.batchId) &&
						(filter.campaignId === undefined || m.campaignId === filter.campaignId) &&
						(filter.phoneNumber === undefined || m.phoneNumber === filter.phoneNumber) &&
						(filter.status === undefined || m.status === filter.status),
				)
				.map(messageRecord);
		},
		chatMessages(filter = {}) {
			return state.chatMessages
				.filter(
					(m) =>
						(filter.accountId === undefined || m.accountId === filter.accountId) &&
						(filter.phoneNumber === undefined || m.phoneNumber === filter.phoneNumber),
				)
				.map((m) => ({ ...copy(m), createdAt: iso(m.createdAt) as string }));
		},
		webhookAttempts(filter = {}) {
			return state.webhookAttempts
				.filter(
					(a) =>
						(filter.messageId === undefined || a.messageId === filter.messageId) &&
						(filter.event === undefined || a.event === filter.event) &&
						(filter.url === undefined || a.url === filter.url),
				)
				.map(copy);
		},
		requests() {
			return state.requests.map(copy);
		},
		clearRequests() {
			state.requests = [];
		},
		addOptIn({ phoneNumber, accountId }) {
			if (typeof phoneNumber !== 'string' || !phoneNumber) throw badRequest('phoneNumber is required');
			const id = accountId ?? firstAccountId();
			if (!id) throw notFound('No account');
			account(id).optIns.add(phoneNumber);
		},
		async advance(ms) {
			if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw badRequest('ms must be a number >= 0');
			await clock.advance(ms);
			return { now: iso(clock.now()) as string };
		},
		now() {
			return iso(clock.now()) as string;
		},
		addFault(fault) {
			return copy(addFault(state, fault));
		},
		faults() {
			return state.faults.map(copy);
		},
		clearFaults() {
			state.faults = [];
		},
		holdCarrier(hold) {
			return holdCarrier(rt, hold, clock.now());
		},
		loseReports(phoneNumbers) {
			rt.state.lostReportNumbers = new Set(phoneNumbers);
			return { phoneNumbers: [...rt.state.lostReportNumbers] };
		},
		expireTokens() {
			rt.tokenGeneration++;
		},
		reviewTemplate(name, status, reason, accountId) {
			if (!TEMPLATE_STATUSES.includes(status)) throw badRequest(`status must be one of ${TEMPLATE_STATUSES.join(', ')}`);
			const matches = [...state.templates.values()].filter(
				(t) => t.name === name && (accountId === undefined || t.accountId === accountId),
			);
			if (matches.length === 0) throw notFound(`Template '${name}' not found`);
			if (matches.length > 1) throw new ApiError(409, 'AMBIGUOUS_TEMPLATE', `Several accounts have '${name}': give accountId`);
			setTemplateStatus(matches[0], status, clock.now(), reason ?? null);
			return templateView(matches[0]);
		},
		rateLimitMode() {
			return rt.rateLimitMode;
		},
		setRateLimitMode(mode, secondOffsetMs) {
			rt.rateLimitMode = parseRateLimitMode(mode);
			if (secondOffsetMs !== undefined) rt.secondOffsetMs = parseSecondOffset(secondOffsetMs);
			state.buckets.clear();
			state.windows.clear();
			state.seconds.clear();
			return { mode: rt.rateLimitMode, secondOffsetMs: rt.secondOffsetMs };
		},
		latency() {
			return copy(rt.latency);
		},
		setLatency(latency) {
			rt.latency = parseLatency(latency);
			return copy(rt.latency);
		},
	};
}

/** HTTP form of the control methods (no auth, JSON envelope). */
export function controlRoutes(control: EmulatorControl): Route[] {
	const p = (path: string) => `${CONTROL_PREFIX}${path}`;
	const q = (query: URLSearchParams, name: string) => query.get(name) ?? undefined;
	return [
		route('POST', p('/reset'), 'none', (ctx) => {
			control.reset(ctx.body === undefined ? undefined : (objectBody(ctx.body) as unknown as Seed));
			return ok({ accounts: control.accounts().map((a) => a.id) });
		}),
		route('GET', p('/accounts'), 'none', () => ok(control.accounts())),
		route('POST', p('/accounts'), 'none', (ctx) => ok(control.addAccount(objectBody(ctx.body) as NewAccount), 201)),
		route('GET', p('/accounts/:id'), 'none', (ctx) => {
			const found = control.accounts().find((a) => a.id === ctx.params.id);
			if (!found) throw notFound(`Account '${ctx.params.id}' not found`);
			return ok(found);
		}),
		route('PATCH', p('/accounts/:id'), 'none', (ctx) =>
			ok(control.updateAccount(ctx.params.id, objectBody(ctx.body) as AccountPatch)),
		),
		route('GET', p('/messages'), 'none', (ctx) => {
			const campaignId = q(ctx.query, 'campaignId');
			return ok(
				control.messages({
					accountId: q(ctx.query, 'accountId'),
					batchId: q(ctx.query, 'batchId'),
					campaignId: campaignId === undefined ? undefined : Number(campaignId),
					phoneNumber: q(ctx.query, 'phoneNumber'),
					status: q(ctx.query, 'status'),
				}),
			);
		}),
		route('GET', p('/chat-messages'), 'none', (ctx) =>
			ok(control.chatMessages({ accountId: q(ctx.query, 'accountId'), phoneNumber: q(ctx.query, 'phoneNumber') })),
		),
		route('GET', p('/webhooks'), 'none', (ctx) =>
			ok(
				control.webhookAttempts({
					messageId: q(ctx.query, 'messageId'),
					event: q(ctx.query, 'event'),
					url: q(ctx.query, 'url'),
				}),
			),
		),
		route('GET', p('/requests'), 'none', () => ok(control.requests())),
		route('DELETE', p('/requests'), 'none', () => {
			control.clearRequests();
			return ok({ cleared: true });
		}),
		route('POST', p('/opt-ins'), 'none', (ctx) => {
			const body = objectBody(ctx.body);
			const input = { phoneNumber: reqString(body, 'phoneNumber'), accountId: optString(body, 'accountId') };
			control.addOptIn(input);
			return ok(input, 201);
		}),
		route('GET', p('/rate-limit'), 'none', () => ok({ mode: control.rateLimitMode() })),
		route('PUT', p('/rate-limit'), 'none', (ctx) => {
			try {
				const body = objectBody(ctx.body);
				const offset = body.secondOffsetMs === undefined ? undefined : parseSecondOffset(body.secondOffsetMs);
				return ok(control.setRateLimitMode(parseRateLimitMode(body.mode), offset));
			} catch (error) {
				throw badRequest((error as Error).message);
			}
		}),
		route('GET', p('/latency'), 'none', () => ok(control.latency())),
		route('PUT', p('/latency'), 'none', (ctx) => ok(control.setLatency(objectBody(ctx.body)))),
		route('GET', p('/clock'), 'none', () => ok({ now: control.now() })),
		route('POST', p('/clock/advance'), 'none', async (ctx) => {
			const ms = optNumber(objectBody(ctx.body), 'ms', 0);
			if (ms === undefined) throw badRequest('ms is required');
			return ok(await control.advance(ms));
		}),
		route('POST', p('/carrier'), 'none', (ctx) => {
			const hold = objectBody(ctx.body).hold;
			if (typeof hold !== 'boolean') throw badRequest('hold must be true or false');
			return ok(control.holdCarrier(hold));
		}),
		route('POST', p('/reports/lost'), 'none', (ctx) => {
			const phoneNumbers = objectBody(ctx.body).phoneNumbers;
			if (!Array.isArray(phoneNumbers) || !phoneNumbers.every((n) => typeof n === 'string')) {
				throw badRequest('phoneNumbers must be an array of strings');
			}
			return ok(control.loseReports(phoneNumbers as string[]));
		}),
		route('GET', p('/faults'), 'none', () => ok(control.faults())),
		route('POST', p('/faults'), 'none', (ctx) => ok(control.addFault(objectBody(ctx.body) as unknown as FaultInput), 201)),
		route('DELETE', p('/faults'), 'none', () => {
			control.clearFaults();
			return ok({ cleared: true });
		}),
		route('POST', p('/tokens/expire'), 'none', () => {
			control.expireTokens();
			return ok({ expired: true });
		}),
		route('POST', p('/templates/:name/review'), 'none', (ctx) => {
			const body = objectBody(ctx.body);
			const status = reqString(body, 'status') as TemplateStatus;
			return ok(control.reviewTemplate(ctx.params.name, status, optString(body, 'reason'), optString(body, 'accountId')));
		}),
	];
}
