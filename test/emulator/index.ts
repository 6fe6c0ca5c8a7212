/**
 * Local emulator of the messaging service (see ../../README.md → Assumptions and ../../docs/emulator.md).
 * A real HTTP server; imports nothing from nodes/ or credentials/.
 */
import { randomBytes } from 'crypto';
import type { AddressInfo } from 'net';

import { createApp } from './app';
import { onCampaignMessageFinal } from './campaigns';
import { Clock } from './clock';
import { createControl, controlRoutes, type EmulatorControl } from './control';
import { DEFAULT_RATE_LIMIT_MODE } from './assumptions';
import { NO_LATENCY, parseLatency } from './latency';
import { ACCESS_TOKEN_TTL_SECONDS } from './limits';
import { parseRateLimitMode, parseSecondOffset, type RateLimitMode } from './rateLimit';
import type { Runtime } from './runtime';
import { defaultSeed } from './seed';
import { createState, type EmulatorState, type Seed } from './state';
import { WebhookDispatcher } from './webhooks';

export interface EmulatorOptions {
	/** 0 = a free port (default) */
	port?: number;
	/** default 127.0.0.1 */
	host?: string;
	/** multiplies every duration: lifecycle, webhook retry delays, template review, campaign sending; default 1 */
	timeScale?: number;
	/** default: defaultSeed() */
	seed?: Seed;
	/** default 3600 */
	tokenTtlSeconds?: number;
	/**
	 * How the per-key rate limit counts: 'token-bucket' (default, a second's burst allowed),
	 * 'sliding-window' (at most the plan rate in any 1,000 ms) or 'fixed-second' (at most the plan
	 * rate in each calendar second). Also settable at /__emulator/rate-limit.
	 */
	rateLimit?: RateLimitMode;
	/** 'fixed-second': its seconds begin this many ms (0–999) past the whole second; default 0. */
	secondOffsetMs?: number;
	/**
	 * The service's distance: `inbound` before a request is processed (the rate limit counts it when
	 * it arrives, after this), `outbound` before its answer leaves; each {ms, jitterMs} (uniform ±) or
	 * "ms±jitter". Default none. Also settable at /__emulator/latency.
	 */
	latency?: { inbound?: unknown; outbound?: unknown };
}

export interface RunningEmulator {
	url: string;
	close(): Promise<void>;
	state: EmulatorState;
	control: EmulatorControl;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	const timeScale = options.timeScale ?? 1;
	if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error('timeScale must be a positive number');
	const state = createState();
	const clock = new Clock(timeScale);
	const rt: Runtime = {
		state,
		clock,
		webhooks: new WebhookDispatcher(state, clock),
		tokenTtlSeconds: options.tokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
		rateLimitMode: parseRateLimitMode(options.rateLimit ?? DEFAULT_RATE_LIMIT_MODE),
		secondOffsetMs: parseSecondOffset(options.secondOffsetMs ?? 0),
		latency: options.latency ? parseLatency(options.latency) : NO_LATENCY,
		jwtSecret: randomBytes(32),
		tokenGeneration: 0,
		onMessageFinal: (message, at) => onCampaignMessageFinal(rt, message, at),
	};
	const control = createControl(rt);
	control.reset(options.seed ?? defaultSeed());

	const server = createApp(rt, controlRoutes(control));
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const urlHost = host.includes(':') ? `[${host}]` : host;

	let closing: Promise<void> | null = null;
	const close = () =>
		(closing ??= (async () => {
			clock.stop();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await Promise.all([closed, rt.webhooks.close()]);
		})());

	return { url: `http://${urlHost}:${port}`, close, state, control };
}

export { defaultSeed, SEED_KEYS, SEED_LOGINS } from './seed';
export {
	SEED_ACCOUNT_IDS,
	SEED_CONTACT_GROUPS,
	SEED_CREDITS,
	SEED_ENTERPRISE_LIMITS,
	SEED_OPT_INS,
	SEED_SENDER_IDS,
} from './seed';
export type { EmulatorControl, AccountPatch, AccountView, MessageFilter, MessageRecord, NewAccount, TemplateView } from './control';
export type { FaultInput } from './faults';
export type { RateLimitMode } from './rateLimit';
export type { LatencyProfile } from './latency';
export type * from './state';
