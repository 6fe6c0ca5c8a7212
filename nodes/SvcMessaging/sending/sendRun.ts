import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { randomUUID } from 'crypto';

import { UNCAPPED } from '../aiTool/agentCap';
import { isToolCall } from '../aiTool/toolMode';
import { getBalance } from '../api/account';
import { getServiceCredentials, planLimits } from '../transport/credentials';
import { containsExpression, rawParameter } from '../rules/rawParameters';
import { wrapError } from '../transport/errors';
import { sharedLimitOf } from '../transport/redis';
import { connectKeyLimiter, type BeforeSend } from '../transport/request';
import { assertBalance } from './balance';
import type { RunIdentity, SendLedger } from './ledger/ledger';
import { RunStores } from './runStores';
import { readStages } from './stages';
import type { KeySendRun, SendRun } from './stages/stage';

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
 * Opens a send: every stage's options, read and checked → the balance (when asked) → the key's
 * limiter → the ledger. Throws, nothing sent, when an option is wrong, the balance is short or the
 * shared Redis cannot be reached (without Continue On Fail).
 */
export async function openSendRun(ctx: IExecuteFunctions, options: SendRunOptions & { kind: 'apiKey' }): Promise<KeySendRun>;
export async function openSendRun(ctx: IExecuteFunctions, options: SendRunOptions): Promise<SendRun>;
export async function openSendRun(ctx: IExecuteFunctions, { kind, creditsNeeded, followsMessages = false }: SendRunOptions): Promise<SendRun> {
	const node = ctx.getNode();
	const continueOnFail = ctx.continueOnFail();
	const facts = { node, continueOnFail };
	const nodeOf = { getNode: () => node };
	const apiCredentials = kind === 'apiKey' ? await getServiceCredentials.call(ctx, 'apiKey') : undefined;
	// Every send of a credential with a shared Redis checks the do-not-send list kept there (campaigns:
	// the API key credential of their sender-ID picker, when the node has one).
	// (n8n refuses a credential the operation does not show, e.g. version 1's campaigns: then no Redis list.)
	const keyCredentials = apiCredentials ?? (node.credentials?.svcMessagingApi ? await getServiceCredentials.call(ctx, 'apiKey').catch(() => undefined) : undefined);
	// The credential's shared Redis, if any: the ledger, the keys and the cap keep their counts there too.
	const shared = apiCredentials && sharedLimitOf(apiCredentials);
	const identity = runIdentityOf(ctx);
	const stores = new RunStores({ identity, shared, rows: ctx.helpers, node, continueOnFail, followsMessages });
	// Every stage's options are read and checked before any request: a bad budget or key costs nothing.
	const { keys, cap = UNCAPPED, ...policies } = await readStages({
		node,
		continueOnFail,
		options: (ctx.getNodeParameter('options', 0, {}) ?? {}) as IDataObject,
		items: ctx.getInputData().length,
		parameter: (path, i, fallback) => ctx.getNodeParameter(path, i, fallback),
		mapped: (path) => containsExpression(rawParameter(node.parameters, path)),
		workflowZone: ctx.getTimezone(),
		identity,
		executionId: ctx.getExecutionId() ?? '',
		followsMessages,
		toolCall: kind === 'apiKey' && isToolCall(ctx),
		credentials: async () => apiCredentials ?? (await getServiceCredentials.call(ctx, kind)),
		shared,
		listRedis: keyCredentials && sharedLimitOf(keyCredentials),
		keyStore: stores.keys(),
	});
	if (creditsNeeded !== undefined) await assertBalance(node, async () => await getBalance(ctx), creditsNeeded);
	// A dry run posts and marks nothing: no limiter is joined and no ledger opened (no Redis, no n8n
	// database). What it asks of the service (sender IDs, the balance) joins the limiter itself.
	if (apiCredentials && !policies.dryRun) await connectKeyLimiter.call(ctx);
	const ledger = policies.dryRun ? DRY_RUN_LEDGER : apiCredentials ? await stores.ledger() : await stores.accountLedger();
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
		const shared = sharedLimitOf(await getServiceCredentials.call(ctx, 'apiKey'));
		const stores = new RunStores({ identity: runIdentityOf(ctx), shared, rows: ctx.helpers, node: ctx.getNode(), continueOnFail: ctx.continueOnFail() });
		// Its marks in n8n's database go with the run's (those this process still holds: a run resumed elsewhere keeps them until n8n's trim).
		await (await stores.ledger()).finish();
	} catch {
		// left open on purpose (see above)
	}
}
