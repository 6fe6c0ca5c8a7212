import type { IDataObject, INode, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { AgentCap } from '../../aiTool/agentCap';
import type { SvcContext } from '../../transport/credentials';
import type { SharedLimitConfig } from '../../transport/redis';
import type { BeforeSend } from '../../transport/request';
import type { PlanLimits } from '../../transport/service';
import type { RunKeys } from '../keys/idempotency';
import type { KeyStore } from '../keys/keyClaims';
import type { NumbersOfUnit } from '../policies/doNotSend';
import type { EarlierEntry, RunIdentity, SendLedger } from '../ledger/ledger';
import type { ItemFailure, Outcome, RunFacts } from '../outcomes';
import type { SendPolicies } from '../policies/policies';
import type { HoursCount, Scheduling, SharedSendTime } from '../policies/sendingHours';

/**
 * What one send needs of its node run, gathered once: the node (for errors), Continue On Fail,
 * "Resend Messages With Unknown Outcome", the opened ledger, the connected key limiter and the
 * agents' message cap. The round, the window, the ledger and the outputs take this instead of
 * n8n's whole context. The context itself stays inside, for one thing only: the api/ endpoint
 * functions need n8n's request helper (`callEndpoint`: a name of its own, not read as Function.prototype.call).
 */
export interface SendRun extends RunFacts {
	readonly resendUnknown: boolean;
	/** the API key's plan (`apiKey` runs): the window's size */
	readonly limits?: PlanLimits;
	readonly ledger: SendLedger;
	readonly cap: AgentCap;
	/** Options → Dry Run, Max Credits (policies.ts), applied by the round */
	readonly policies: SendPolicies;
	/** Options → Idempotency Key (idempotency.ts), when set: claimed by the round */
	readonly keys?: RunKeys;
	/** an execution hint under the node's output */
	hint(message: string): void;
	/** an endpoint function of api/, called with the node run's context */
	callEndpoint<T>(
		endpoint: (service: SvcContext, body: IDataObject, itemIndex: number, beforeSend: BeforeSend) => Promise<T>,
		body: IDataObject,
		itemIndex: number,
		beforeSend?: BeforeSend,
	): Promise<T>;
	/** an error of one item as its outcome (its item index set) */
	failure(error: unknown, itemIndex: number): ItemFailure;
	/**
	 * Marks the run finished in the ledger: an execution Retry then ignores it (after the retry
	 * window). Called by the operation once its outputs are shaped without an error; a run never
	 * finished stays open, the safe side (a retry consults its sends).
	 */
	finish(): Promise<void>;
}

/** An API key's run: it has the plan's limits (the window's size, Send Bulk's recipients per call). */
export interface KeySendRun extends SendRun {
	readonly limits: PlanLimits;
}

/** One message (or campaign) of a send, under its identity in the send ledger. */
export interface SendUnit {
	itemIndex: number;
	identity: string;
	/** Set by a stage or a post: what became of it (kept on the unit: a map of 100,000 units cost ~10 MB). */
	outcome?: UnitOutcome;
	/** Set by Sending Hours when it defers the unit: its output fields, scheduledAt among them (posted with it) */
	deferred?: IDataObject;
	/** Set by Sender ID Automatic: the sender ID chosen for the number's country (posted with it) */
	sender?: string;
}

/** (sending/outcomes.ts's Outcome, under the round's name) */
export type UnitOutcome = Outcome;

/** What the service answered for each unit of one post (one message, or a Send Bulk call's recipients). */
export type Posted<U> = Array<[unit: U, outcome: UnitOutcome]>;

/** What an operation tells the round about its units and how to post them. */
export interface RoundOptions<U extends SendUnit, W> {
	/** report a unit accepted before with its earlier output as it is, without `alreadySent: true` */
	repeatedAsIs?: boolean;
	/** the refusal of a unit an earlier try may have sent (default: unknownOutcomeError) */
	refuseUnknown?: (earlier: EarlierEntry & { outcome: 'unknown' }, unit: U) => NodeApiError | NodeOperationError;
	/** how many posts are under way at once (sending/window.ts) */
	window: number;
	/** the pending units as posts: one each, or Send Bulk's calls of many */
	postsOf: (pending: U[]) => W[];
	unitsOf: (post: W) => U[];
	/**
	 * posts once and answers each unit's outcome (a failure is an outcome, not a throw). `begin` marks
	 * the units under way in the ledger: it is handed to the request (transport/request.ts
	 * `beforeSend`), which calls it in the key limiter's slot, right before the request leaves.
	 */
	post: (post: W, begin: () => Promise<void>) => Promise<Posted<U>>;
	/** a unit's credits, for Max Credits and a dry run's total (undefined: only the service can count them) */
	creditsOf: (unit: U) => number | undefined;
	/** a dry run's output of a unit: what would be posted and its cost (encoding, segments, credits, sender, send time) */
	price: (unit: U) => IDataObject;
	/** Sending Hours: the unit's number (without it, as for campaigns, the hours do not apply) */
	recipientOf?: (unit: U) => string;
	/** the do-not-send list for a unit of many numbers (a campaign's manual numbers): the listed ones taken out */
	numbersOfUnit?: NumbersOfUnit<U>;
	/** Sending Hours of a unit with several recipients and one send time (a scheduled campaign; undefined: a draft) */
	recipientsOf?: (unit: U) => SharedSendTime | undefined;
	/** the unit's own scheduledAt, judged (and moved) instead of now */
	scheduledAtOf?: (unit: U) => string | undefined;
	/** whether the unit asked for Sender ID "Automatic (by Recipient's Country)" */
	automaticSender?: (unit: U) => boolean;
	/** how the operation takes a deferred unit (default: posted with its scheduledAt) */
	scheduling?: Scheduling;
	/** what one unit is, in the hints (default "message") */
	noun?: string;
	/** the first failure stops the send and fails the node (campaigns without Continue On Fail) */
	stopOnFailure?: boolean;
}

/**
 * What a stage is told of the posts that follow it (the Idempotency Key settles its keys, the agents'
 * cap gives back what was refused, Max Credits counts what was used). Every hook is optional.
 */
export interface PostWatcher<U> {
	/** a post's units, about to be posted */
	started?(units: U[]): void;
	/** what one post's units became (also when the ledger refused their mark and nothing was posted) */
	settled?(posted: Posted<U>): Promise<void> | void;
	/** units never posted: the send stopped before them (a lost Redis) */
	unposted?(units: U[]): void;
	/** every post is done */
	finished?(): void;
	/** the round ends, whether it answered or threw */
	end?(): Promise<void>;
}

/** One send, as the stages see it: the units, the ones still to decide and what the stages found. */
export interface Round<U extends SendUnit, W> {
	readonly run: SendRun;
	readonly units: U[];
	readonly options: RoundOptions<U, W>;
	/** the units no stage has decided yet: what will be posted */
	pending: U[];
	/** the credit estimate of `pending` (Max Credits, Dry Run); undefined when it cannot be told */
	estimate?: number;
	/** what Sending Hours did (the dry run's hint names it) */
	hours?: HoursCount;
	/** set by a stage that answered every unit (Dry Run): nothing is posted */
	ended: boolean;
	readonly watchers: Array<PostWatcher<U>>;
	/** a unit's output without sending it (a dry run, a suppressed or skipped unit), its sender included */
	price(unit: U): IDataObject;
	/** the store behind a stage failed before these units were posted: they fail, unsent */
	failUnsent(units: U[], error: unknown): void;
	/** takes the units a stage decided out of `pending` */
	settlePending(): void;
}

/**
 * What a stage may read of its node run, once, before any request (sendRun.ts builds it from n8n's
 * context): the narrow face of that context the stages need, never the context itself.
 */
export interface RunSource {
	readonly node: INode;
	readonly continueOnFail: boolean;
	/** Options of the first item: a run's policies are read from it (one run, one budget) */
	readonly options: IDataObject;
	/** how many input items the run has */
	readonly items: number;
	/** a parameter of item i, e.g. 'options.idempotencyKey' */
	parameter(path: string, itemIndex: number, fallback: unknown): unknown;
	/** whether the parameter is written as an expression (its value may differ per item) */
	mapped(path: string): boolean;
	/** the workflow's time zone */
	readonly workflowZone: string;
	/** who sends, as the ledger keys it */
	readonly identity: RunIdentity;
	/** n8n's execution id, '' for an MCP Server Trigger's tool call (run before its execution exists) */
	readonly executionId: string;
	/** Send and Wait follows each message by its ID after sending */
	readonly followsMessages: boolean;
	/** whether the node runs as an AI agent's tool (the agents' cap applies) */
	readonly toolCall: boolean;
	/** the run's credential (the API key, or the login of campaigns) */
	credentials(): Promise<IDataObject>;
	/** the API-key credential's shared Redis: the agents' cap counts there too */
	readonly shared?: SharedLimitConfig;
	/** the Redis holding the do-not-send list (campaigns: their sender-ID picker's API-key credential's) */
	readonly listRedis?: SharedLimitConfig;
	/** where the Idempotency Key's claims live (stores/runStores.ts: opened on first use) */
	readonly keyStore: KeyStore;
}

/** What the stages read of a run: the user's policies, the Idempotency Keys and the agents' cap. */
export interface StageSettings extends SendPolicies {
	keys?: RunKeys;
	cap?: AgentCap;
}

/**
 * One step of the send round (round.ts applies them in the order of stages/index.ts). A stage looks
 * at `round.pending`, may decide units (sets their outcome, then `settlePending`), may end the round
 * (`ended`) and may watch the posts. It never posts, and it never undoes what an earlier stage
 * decided. A store that fails it fails its units unsent (`failUnsent`), never lets them through.
 */
export interface Stage {
	readonly name: string;
	/**
	 * Reads and checks the stage's own parameters of the run, before any request (a bad value fails
	 * the node, or with Continue On Fail its item, naming the field): what it answers is the run's.
	 */
	read?(source: RunSource): Promise<Partial<StageSettings>> | Partial<StageSettings>;
	apply<U extends SendUnit, W>(round: Round<U, W>): Promise<void> | void;
}
