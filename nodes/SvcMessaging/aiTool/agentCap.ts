import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkMessageCap } from '../rules/fields';
import { getServiceCredentials } from '../transport/credentials';
import { mayHaveBeenProcessed } from '../transport/errors';
import { digest, RedisUnavailable, sharedLimitOf, type SharedLimitConfig } from '../transport/redis';
import { inProcess } from '../stores/inProcess';
import { inRedis } from '../stores/inRedis';
import { StoreFull, type Store } from '../stores/store';
import { isToolCall } from './toolMode';

/**
 * A guard for agents: when this node runs as a tool (see isToolCall), the messages the SVC
 * Messaging tools send in one execution of the workflow are counted, and a call that would go past
 * the tool's "Max Messages per Execution" (default 10, 0 = no limit) is refused before anything is
 * sent. Outside tool calls nothing is counted or refused.
 *
 * What "one execution" is (verified in n8n 1.123.81 and 2.41.1):
 * - AI Agent and Tool Executor: the workflow's execution; every call of every SVC Messaging tool
 *   in it counts together (several calls of one tool, and a Send SMS plus a Chat Message tool);
 * - MCP Server Trigger: n8n runs each `tools/call` on its own, inside the webhook request and
 *   before (1.x, 2.x regular mode) or as (2.x queue mode) an execution of its own; there is no
 *   execution id shared by two calls, so the limit applies to each call (e.g. a bulk send).
 *
 * The count is keyed by a digest of workflow and execution id (`agent-cap:<digest>`). With the
 * credential's shared Redis ("Use Redis") it lives there (stores/inRedis.ts: the check and the count
 * are one Lua step), so that the tool calls of one queue-mode execution count together on every
 * worker. Otherwise it lives in this process (stores/inProcess.ts) and is forgotten 24 hours after
 * its last use: never because other executions ran (see localCounts).
 */
export const DEFAULT_AGENT_MESSAGE_CAP = 10;

/** The operations that send, by resource: the cap option is shown and applied for these. */
export const CAPPED_OPERATIONS: Record<string, string[]> = {
	sms: ['send', 'sendBulk', 'sendAndWaitForDelivery'],
	chatMessage: ['send'],
};

export const MESSAGE_CAP_REACHED = 'MESSAGE_CAP_REACHED';

/** An execution's count is kept this long after its last tool call that sent. */
const KEEP_MS = 24 * 3600 * 1000;
/**
 * The in-process memory bound: at most this many executions counted at once (about 190 bytes
 * each, 19 MB in all). At the bound, counts idle for MIN_KEEP_MS are forgotten to make room, oldest
 * first; when every count is younger, a new execution's call is refused instead: a cap is never
 * reset early under load.
 */
const MAX_EXECUTIONS = 100_000;
const MIN_KEEP_MS = 3600 * 1000;

/** Workflow + execution → messages counted so far, in this process (bounded as MAX_EXECUTIONS says). */
const localCounts = inProcess<number>({ maxKeys: MAX_EXECUTIONS, keepAtLeastMs: MIN_KEEP_MS });
const countKey = (key: string) => `agent-cap:${digest(key)}`;

export interface Reservation {
	/** Gives back messages that were not sent after all (refused by the service, never sent). */
	release(messages?: number): void;
	/** Gives back one message per error that says it was not sent (not a possibly-processed one). */
	releaseRefused(errors: Array<{ context?: { mayHaveBeenProcessed?: unknown } }>): void;
}

const NOTHING: Reservation = { release() {}, releaseRefused() {} };

function reservation(giveBack: (messages: number) => void, messages: number): Reservation {
	let held = messages;
	const release = (n = 1) => {
		const back = Math.min(Math.max(0, n), held);
		held -= back;
		giveBack(back);
	};
	return { release, releaseRefused: (errors) => release(errors.filter((e) => !mayHaveBeenProcessed(e)).length) };
}

/** The message cap of one node run: counts messages about to be sent, or refuses them. */
export interface AgentCap {
	/**
	 * Counts `messages` against the execution's cap, or throws (sending nothing) when they do not
	 * fit. The check and the count are one step (synchronous here, one Lua script in Redis), so
	 * concurrent tool calls of one execution cannot both pass.
	 */
	reserve(messages: number): Promise<Reservation>;
}

export const UNCAPPED: AgentCap = { reserve: async () => NOTHING };

/** What the cap of a node run is read from (sending/stages/agentCap.ts reads it of the run). */
export interface CapSource {
	node: INode;
	/** whether the node runs as an agent's tool (isToolCall): only then is anything counted */
	toolCall: boolean;
	/** the tool's "Max Messages per Execution", checked when something is to be counted */
	capValue: unknown;
	workflowId: string;
	/** n8n's execution id; '' for an MCP Server Trigger's call, which is its own scope */
	executionId: string;
	/** the API-key credential's shared Redis: the count lives there */
	shared?: SharedLimitConfig;
}

/**
 * The cap of one node run; with `shared` the count lives in that Redis. The cap's value is checked
 * when something is to be counted, as the agent's call sends.
 */
export function agentCapOf({ node, toolCall, capValue, workflowId, executionId, shared }: CapSource): AgentCap {
	if (!toolCall) return UNCAPPED;
	const key = executionId ? `${workflowId}\u0000${executionId}` : undefined;
	return { reserve: async (messages) => await reserve(node, capValue, key, shared, messages) };
}

/** One reservation outside a send run (the AI test bed). */
export async function reserveAgentMessages(ctx: IExecuteFunctions, messages: number): Promise<Reservation> {
	if (messages <= 0 || !isToolCall(ctx)) return NOTHING;
	const cap = agentCapOf({
		node: ctx.getNode(),
		toolCall: true,
		capValue: ctx.getNodeParameter('maxMessagesPerExecution', 0, DEFAULT_AGENT_MESSAGE_CAP),
		workflowId: String(ctx.getWorkflow().id ?? ''),
		executionId: ctx.getExecutionId() ?? '',
		shared: sharedLimitOf(await getServiceCredentials.call(ctx, 'apiKey')),
	});
	return await cap.reserve(messages);
}

async function reserve(node: INode, capValue: unknown, key: string | undefined, sharedLimit: SharedLimitConfig | undefined, messages: number): Promise<Reservation> {
	if (messages <= 0) return NOTHING;
	const cap = checkMessageCap(node, capValue);
	// Without an execution id (MCP Server Trigger) the call is its own scope: counted nowhere.
	if (key === undefined) {
		if (cap > 0 && messages > cap) throw capReached(node, cap, 0, messages);
		return NOTHING;
	}
	const name = countKey(key);
	let store: Store<number> = localCounts;
	let counted: { added: boolean; before: number };
	try {
		// A cap counts in the shared Redis (every worker's calls of one execution together); no limit (0) counts here.
		if (cap > 0 && sharedLimit) store = await inRedis<number>(sharedLimit, 'the agents’ message cap');
		counted = await store.addUpTo(name, messages, cap > 0 ? cap : Infinity, KEEP_MS);
	} catch (error) {
		// A count that finds no room is kept nowhere: refused under a cap, sent without one (0).
		if (error instanceof StoreFull) {
			if (cap > 0) throw tooManyCounted(node);
			return NOTHING;
		}
		// Fails closed: a cap that cannot be counted refuses the call, nothing sent.
		if (error instanceof RedisUnavailable) throw new NodeOperationError(node, error.message, { description: `${error.description} The agents’ message cap is counted there, so the call is refused.` });
		throw new NodeOperationError(node, error as Error);
	}
	if (!counted.added) throw capReached(node, cap, counted.before, messages);
	return reservation((back) => store.subtract(name, back), messages);
}

function capReached(node: INode, cap: number, sent: number, messages: number): NodeOperationError {
	const left = Math.max(0, cap - sent);
	const problem =
		left === 0
			? `Message limit reached: the SVC Messaging tools may send at most ${cap} message${cap === 1 ? '' : 's'} in one execution, and ${sent} ${sent === 1 ? 'was' : 'were'} sent already. Nothing was sent.`
			: `This call would send ${messages} messages, but only ${left} of the ${cap} allowed in one execution ${left === 1 ? 'is' : 'are'} left. Nothing was sent.`;
	const error = new NodeOperationError(node, problem, {
		description:
			left === 0
				? 'Do not call a sending tool again in this run: tell the user the message limit was reached. The workflow owner can raise "Max Messages per Execution" on the tool (0 = no limit).'
				: `Send to at most ${left} recipient${left === 1 ? '' : 's'} in this run, or tell the user the message limit would be exceeded. The workflow owner can raise "Max Messages per Execution" on the tool (0 = no limit).`,
	});
	error.context.errorCode = MESSAGE_CAP_REACHED;
	return error;
}

function tooManyCounted(node: INode): NodeOperationError {
	const error = new NodeOperationError(
		node,
		`Message limit not counted: this n8n process already counts the messages of ${MAX_EXECUTIONS} executions that used the SVC Messaging tools in the last hour. Nothing was sent.`,
		{
			description:
				'Try again later, or tell the user the message could not be sent now. The workflow owner can turn on "Use Redis" on the credential, which counts in Redis instead.',
		},
	);
	error.context.errorCode = MESSAGE_CAP_REACHED;
	return error;
}

/** Messages counted for an execution so far (tests). */
export function messagesCounted(workflowId: string, executionId: string): number {
	return localCounts.held(countKey(`${workflowId}\u0000${executionId}`)) ?? 0;
}
