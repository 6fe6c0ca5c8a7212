import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { randomUUID } from 'crypto';

import { agentCapOf, UNCAPPED, type AgentCap } from '../aiTool/agentCap';
import { getBalance } from '../api/account';
import { getServiceCredentials, planLimits, type SvcContext } from '../transport/credentials';
import { wrapError } from '../transport/errors';
import { checkTimeZone } from '../rules/timeZone';
import { sharedLimitOf } from '../transport/redis';
import { connectKeyLimiter, type BeforeSend } from '../transport/request';
import type { PlanLimits } from '../transport/service';
import { assertBalance } from './balance';
import { readDoNotSendNumbers } from './policies/doNotSend';
import { durableMarks } from './ledger/durableMarks';
import { openSendLedger, type RunIdentity, type SendLedger } from './ledger/ledger';
import { messageDigestOf, withDurableMarks } from './ledger/ledgerDurable';
import type { ItemFailure, RunFacts } from './outcomes';
import { readPolicies, type SendPolicies } from './policies/policies';
import type { RunKeys } from './keys/idempotency';
import { openLedger } from './recovery';
import { readRunKeys } from './keys/runKeys';

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
		endpoint: (ctx: SvcContext, body: IDataObject, itemIndex: number, beforeSend: BeforeSend) => Promise<T>,
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

export interface SendRunOptions {
	/**
	 * `apiKey`: the API key's ledger (in Redis too when the limit is shared), the key's limiter and
	 * the agents' message cap. `account`: campaigns, whose ledger stays in this process.
	 */
	kind: 'apiKey' | 'account';
	/** "Check Balance Before Sending": the estimate, checked before anything else */
	creditsNeeded?: number;
	/**
	 * The operation follows each message by its ID after sending (Send and Wait): a message n8n's
	 * database knows only as accepted (no ID) is then refused as of unknown outcome, not reported sent.
	 */
	followsMessages?: boolean;
}

const nothingBefore: BeforeSend = async () => undefined;

/** A dry run posts and marks nothing, so it opens no ledger: no Redis, no n8n database. */
const DRY_RUN_LEDGER: SendLedger = {
	consult: false,
	lookup: async (identities) => identities.map(() => undefined),
	held: (identities) => identities.map(() => false),
	begin: async () => undefined,
	record: async () => undefined,
	finish: async () => undefined,
};

/**
 * Sending Hours' time zone of each item, for numbers outside the six countries: its Time Zone
 * field (an IANA name, mappable per item), else the workflow's. Every item's is checked here,
 * before any request (a fixed value once), whether or not a number will need it.
 */
function itemTimeZones(ctx: IExecuteFunctions, options: IDataObject): ((i: number) => string) | undefined {
	if (!(options.sendingHours as IDataObject | undefined)?.hours) return undefined;
	const node = ctx.getNode();
	const workflowZone = ctx.getTimezone();
	const raw = ((node.parameters.options as IDataObject | undefined)?.sendingHours as { hours?: IDataObject } | undefined)?.hours?.timeZone;
	const read = (i: number) => checkTimeZone(node, ctx.getNodeParameter('options.sendingHours.hours.timeZone', i, ''), i) ?? workflowZone;
	if (typeof raw !== 'string' || !raw.startsWith('=')) {
		const zone = read(0);
		return () => zone;
	}
	const zones = ctx.getInputData().map((_, i) => read(i));
	return (i) => zones[i] ?? workflowZone;
}

/** Who sends, as the ledger keys it. */
export function runIdentityOf(ctx: IExecuteFunctions): RunIdentity {
	return {
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: ctx.getNode().id,
		// No execution id: an MCP Server Trigger's tool call, run before n8n creates its execution. Each
		// such call is a run of its own (one fixed id made every later identical message "already sent").
		executionId: ctx.getExecutionId() || `no-execution-${randomUUID()}`,
		runIndex: ctx.getWorkflowDataProxy(0).$runIndex ?? 0,
		isRetry: ctx.getMode() === 'retry',
	};
}

/**
 * Opens a send: the balance (when asked) → the key's limiter → the ledger. Throws, nothing sent,
 * when the balance is short or the shared Redis cannot be reached (without Continue On Fail).
 */
export async function openSendRun(ctx: IExecuteFunctions, options: SendRunOptions & { kind: 'apiKey' }): Promise<KeySendRun>;
export async function openSendRun(ctx: IExecuteFunctions, options: SendRunOptions): Promise<SendRun>;
export async function openSendRun(ctx: IExecuteFunctions, { kind, creditsNeeded, followsMessages }: SendRunOptions): Promise<SendRun> {
	const node = ctx.getNode();
	const continueOnFail = ctx.continueOnFail();
	const facts = { node, continueOnFail };
	// Read (and checked) before any request: a bad budget costs nothing.
	const options = (ctx.getNodeParameter('options', 0, {}) ?? {}) as IDataObject;
	let policies = readPolicies(node, options, itemTimeZones(ctx, options));
	// Read once for the run, from its first item: a list mapped from 20,000 rows is not evaluated per item.
	const numbers = readDoNotSendNumbers(node, ctx.getNodeParameter('doNotSend.list.numbers', 0, ''), (options.defaultCountry as string) || undefined);
	const nodeOf = { getNode: () => node };
	const apiCredentials = kind === 'apiKey' ? await getServiceCredentials.call(ctx, 'apiKey') : undefined;
	// Every send of a credential with a shared Redis checks the list kept there (campaigns: the API
	// key credential of their sender-ID picker, when the node has one).
	// (n8n refuses a credential the operation does not show, e.g. version 1's campaigns: then no Redis list.)
	const keyCredentials = apiCredentials ?? (node.credentials?.svcMessagingApi ? await getServiceCredentials.call(ctx, 'apiKey').catch(() => undefined) : undefined);
	const listRedis = keyCredentials ? sharedLimitOf(keyCredentials) : undefined;
	if (numbers || listRedis) policies = { ...policies, doNotSend: { numbers, redis: listRedis } };
	const identity = runIdentityOf(ctx);
	// Every item's key is checked before any request, as the policies are.
	const keys = await readRunKeys(
		{
			node,
			continueOnFail,
			firstOptions: options,
			items: ctx.getInputData().length,
			option: (name, i) => ctx.getNodeParameter(`options.${name}`, i, ''),
			helpers: ctx.helpers,
			credentials: async () => apiCredentials ?? (await getServiceCredentials.call(ctx, kind)),
			shared: () => apiCredentials && sharedLimitOf(apiCredentials),
		},
		identity,
		followsMessages,
	);
	if (creditsNeeded !== undefined) await assertBalance(node, async () => await getBalance(ctx), creditsNeeded);
	let ledger: SendLedger;
	let cap = UNCAPPED;
	if (apiCredentials) {
		await connectKeyLimiter.call(ctx);
		// The credential's shared Redis, if any: the ledger and the cap keep their counts there too.
		const shared = sharedLimitOf(apiCredentials);
		ledger = policies.dryRun ? DRY_RUN_LEDGER : await openLedger(identity, shared, facts);
		// n8n's own database keeps what a restart of n8n (or of a Redis without persistence) forgets.
		if (!policies.dryRun) ledger = withDurableMarks(ledger, identity, durableMarks(`${identity.workflowId}\u0000${identity.nodeId}`, ctx.helpers, messageDigestOf(identity)), { shared, followsMessages });
		cap = agentCapOf(ctx, shared);
	} else {
		ledger = policies.dryRun ? DRY_RUN_LEDGER : await openSendLedger(identity);
	}
	return {
		...facts,
		resendUnknown: kind === 'apiKey' && (ctx.getNodeParameter('options.resendUnknownOutcome', 0, false) as boolean),
		limits: apiCredentials ? planLimits(apiCredentials) : undefined,
		ledger,
		cap,
		policies,
		...(keys && { keys }),
		hint: (message) => ctx.addExecutionHints({ message, location: 'outputPane' }),
		callEndpoint: async (endpoint, body, itemIndex, beforeSend = nothingBefore) => await endpoint(ctx, body, itemIndex, beforeSend),
		failure: (error, itemIndex) => ({ ok: false, itemIndex, error: wrapError(nodeOf, error, itemIndex) }),
		// A dry run wrote nothing: nothing to finish.
		finish: async () => (policies.dryRun ? undefined : await ledger.finish()),
	};
}

/**
 * Marks this node run finished in the API key's send ledger, when its messages are (Send and
 * Wait: when its wait ends). Should the ledger's Redis be out of reach the run stays open: a retry
 * then still finds its messages, the safe side.
 */
export async function finishRun(ctx: IExecuteFunctions): Promise<void> {
	try {
		const facts = { node: ctx.getNode(), continueOnFail: ctx.continueOnFail() };
		const shared = sharedLimitOf(await getServiceCredentials.call(ctx, 'apiKey'));
		const identity = runIdentityOf(ctx);
		const ledger = await openLedger(identity, shared, facts);
		// Its marks in n8n's database go with the run's (those this process still holds: a run resumed elsewhere keeps them until n8n's trim).
		await withDurableMarks(ledger, identity, durableMarks(`${identity.workflowId}\u0000${identity.nodeId}`, ctx.helpers, messageDigestOf(identity)), { shared }).finish();
	} catch {
		// left open on purpose (see above)
	}
}
