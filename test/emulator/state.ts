/** The emulator's in-memory state: accounts, keys and every stored record. */

export type Tier = 'free' | 'starter' | 'business' | 'enterprise';
export type SmsStatus = 'PENDING' | 'SENT' | 'DELIVERED' | 'FAILED' | 'EXPIRED';
export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'COMPLETED' | 'FAILED' | 'PAUSED' | 'CANCELLED';
export type TemplateStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED';
export type SenderIdType = 'ALPHANUMERIC' | 'NUMERIC';

export interface SeedSenderId {
	senderId: string;
	/** default: NUMERIC when all digits, else ALPHANUMERIC */
	type?: SenderIdType;
	/** default ACTIVE */
	status?: string;
	/** ISO codes; for Ghana, listing GH means pre-approved */
	countries: string[];
}

export interface SeedApiKey {
	key: string;
	tier: Tier;
	label?: string;
	/** custom limits (Enterprise); default: the plan's */
	requestsPerSecond?: number;
	recipientsPerCall?: number;
}

export interface SeedAccount {
	id: string;
	email: string;
	password: string;
	/** default SIGNUP_CREDITS (10) */
	credits?: number;
	defaultSenderId?: string;
	senderIds?: SeedSenderId[];
	apiKeys?: SeedApiKey[];
	chatRegistered?: boolean;
	optIns?: string[];
	contactGroups?: Record<string, string[]>;
	webhookUrl?: string | null;
	webhookSecret?: string | null;
}

export interface Seed {
	accounts: SeedAccount[];
}

export interface SenderIdRecord {
	id: string;
	senderId: string;
	status: string;
	type: SenderIdType;
	countries: string[];
	createdAt: number;
}

export interface ApiKeyRecord {
	key: string;
	accountId: string;
	tier: Tier;
	label: string | null;
	requestsPerSecond: number;
	recipientsPerCall: number;
}

export interface Account {
	id: string;
	email: string;
	password: string;
	credits: number;
	creditsUpdatedAt: number;
	defaultSenderId: string;
	senderIds: SenderIdRecord[];
	chatRegistered: boolean;
	optIns: Set<string>;
	contactGroups: Map<number, string[]>;
	webhookUrl: string | null;
	webhookSecret: string | null;
	createdAt: number;
}

export interface FailureReason {
	code: string;
	message: string;
}

export interface SmsMessage {
	messageId: string;
	accountId: string;
	batchId: string | null;
	campaignId: number | null;
	phoneNumber: string;
	message: string;
	senderId: string;
	reference: string | null;
	webhookUrl: string | null;
	status: SmsStatus;
	encoding: 'GSM7' | 'UNICODE';
	segments: number;
	creditsUsed: number;
	createdAt: number;
	scheduledAt: number | null;
	sentAt: number | null;
	deliveredAt: number | null;
	finalAt: number | null;
	failureReason: FailureReason | null;
}

export interface Batch {
	batchId: string;
	accountId: string;
	reference: string | null;
	messageIds: string[];
	createdAt: number;
}

export interface Campaign {
	id: number;
	accountId: string;
	name: string;
	message: string;
	senderId: string;
	status: CampaignStatus;
	manualNumbers: string[];
	contactGroupIds: number[];
	recipients: string[];
	scheduledAt: number | null;
	createdAt: number;
	updatedAt: number;
	sentAt: number | null;
	completedAt: number | null;
	successfulDeliveries: number;
	failedDeliveries: number;
	cost: number;
	messageIds: string[];
	/** why an automatic (scheduled) send failed; internal */
	failureReason: string | null;
	/** bumped on every reschedule so that a stale timer does nothing */
	scheduleSeq: number;
}

export interface ChatMessage {
	messageId: string;
	accountId: string;
	phoneNumber: string;
	type: string;
	recipientType: string;
	content: unknown;
	status: 'SENT';
	creditsUsed: number;
	createdAt: number;
}

export interface Template {
	id: string;
	accountId: string;
	name: string;
	category: string;
	language: string;
	components: unknown[];
	status: TemplateStatus;
	rejectedReason: string | null;
	bodyVariables: number;
	headerVariables: number;
	createdAt: number;
	updatedAt: number;
	approvedAt: number | null;
	/** bumped on a manual review so that the automatic review does nothing */
	reviewSeq: number;
}

export interface WebhookAttempt {
	id: number;
	url: string;
	event: string;
	messageId: string;
	accountId: string;
	attempt: number;
	time: string;
	status: number | null;
	error: string | null;
	durationMs: number;
	signed: boolean;
	/** emulator time of the next attempt, or null (delivered, or discarded after the last attempt) */
	nextAttemptAt: string | null;
	payload: unknown;
}

export interface RequestRecord {
	id: number;
	method: string;
	path: string;
	status: number | null;
	errorCode: string | null;
	time: string;
	durationMs: number;
	auth: 'apiKey' | 'bearer' | null;
	/** last 4 characters of the API key only */
	keyLast4: string | null;
	accountId: string | null;
	fault: string | null;
}

export type FaultKind = 'rate-limit' | 'server-error' | 'drop-before-processing' | 'drop-after-processing' | 'slow';

export interface Fault {
	id: number;
	kind: FaultKind;
	method: string | null;
	pathPrefix: string;
	remaining: number;
	status: number;
	delayMs: number;
	retryAfterSeconds: number;
	hits: number;
}

export interface Bucket {
	tokens: number;
	updatedAt: number;
}

export interface EmulatorState {
	/** bumped by reset: async work started before a reset records nothing */
	epoch: number;
	accounts: Map<string, Account>;
	keys: Map<string, ApiKeyRecord>;
	messages: Map<string, SmsMessage>;
	batches: Map<string, Batch>;
	campaigns: Map<number, Campaign>;
	nextCampaignId: number;
	chatMessages: ChatMessage[];
	/** by `${accountId}/${name}` */
	templates: Map<string, Template>;
	webhookAttempts: WebhookAttempt[];
	nextWebhookAttemptId: number;
	requests: RequestRecord[];
	nextRequestId: number;
	faults: Fault[];
	nextFaultId: number;
	buckets: Map<string, Bucket>;
	/** sliding-window rate limit: counted arrival times per API key (rateLimit.ts) */
	windows: Map<string, number[]>;
	/** fixed-second rate limit: the current calendar second's count per API key (rateLimit.ts) */
	seconds: Map<string, { second: number; count: number }>;
	/** carrier hold (control surface): messages due to end stay SENT, with no final report, until released */
	carrierHeld: boolean;
	heldMessages: SmsMessage[];
	/** lost reports (control surface): no delivery report is posted for messages to these numbers */
	lostReportNumbers: Set<string>;
}

export function createState(): EmulatorState {
	return {
		epoch: 0,
		accounts: new Map(),
		keys: new Map(),
		messages: new Map(),
		batches: new Map(),
		campaigns: new Map(),
		nextCampaignId: 1,
		chatMessages: [],
		templates: new Map(),
		webhookAttempts: [],
		nextWebhookAttemptId: 1,
		requests: [],
		nextRequestId: 1,
		faults: [],
		nextFaultId: 1,
		buckets: new Map(),
		windows: new Map(),
		seconds: new Map(),
		carrierHeld: false,
		heldMessages: [],
		lostReportNumbers: new Set(),
	};
}

/** Empties every record in place (the state object keeps its identity) and bumps the epoch. */
export function clearState(state: EmulatorState): void {
	const fresh = createState();
	const epoch = state.epoch + 1;
	Object.assign(state, fresh, { epoch });
}

export function templateKey(accountId: string, name: string): string {
	return `${accountId}/${name}`;
}
