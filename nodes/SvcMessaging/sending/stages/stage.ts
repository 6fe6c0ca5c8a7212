import type { IDataObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { NumbersOfUnit } from '../policies/doNotSend';
import type { EarlierEntry } from '../ledger/ledger';
import type { Outcome } from '../outcomes';
import type { HoursCount, Scheduling, SharedSendTime } from '../policies/sendingHours';
import type { SendRun } from '../sendRun';

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
 * One step of the send round (round.ts applies them in the order of stages/index.ts). A stage looks
 * at `round.pending`, may decide units (sets their outcome, then `settlePending`), may end the round
 * (`ended`) and may watch the posts. It never posts, and it never undoes what an earlier stage
 * decided. A store that fails it fails its units unsent (`failUnsent`), never lets them through.
 */
export interface Stage {
	readonly name: string;
	apply<U extends SendUnit, W>(round: Round<U, W>): Promise<void> | void;
}
