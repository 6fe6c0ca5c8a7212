/** What every area of the emulator shares: state, clock, webhook dispatcher and options. */
import type { Clock } from './clock';
import type { LatencyProfile } from './latency';
import type { RateLimitMode } from './rateLimit';
import type { EmulatorState, SmsMessage } from './state';
import type { WebhookDispatcher } from './webhooks';

export interface Runtime {
	state: EmulatorState;
	clock: Clock;
	webhooks: WebhookDispatcher;
	tokenTtlSeconds: number;
	/** how the per-key rate limit counts (an emulator setting: reset keeps it) */
	rateLimitMode: RateLimitMode;
	/** fixed-second: where its seconds begin, ms past a whole second of the emulator's clock (reset keeps it) */
	secondOffsetMs: number;
	/** the service's distance: delays before processing and before the answer leaves (reset keeps it) */
	latency: LatencyProfile;
	jwtSecret: Buffer;
	/** bumped by expireTokens(): every token issued before is rejected */
	tokenGeneration: number;
	/** called when a message reaches DELIVERED, FAILED or EXPIRED (campaign completion) */
	onMessageFinal: (message: SmsMessage, at: number) => void;
}
