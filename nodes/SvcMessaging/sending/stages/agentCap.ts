import { agentCapOf, DEFAULT_AGENT_MESSAGE_CAP } from '../../aiTool/agentCap';
import { mayHaveBeenProcessed } from '../../transport/errors';
import type { Stage } from './stage';

/**
 * As an AI agent's tool: what this call sends counts against the execution's message cap, or the
 * call is refused. A message the service refused, or that was never posted, is given back.
 */
export const agentCap: Stage = {
	name: "Agents' message cap",
	read: ({ node, toolCall, parameter, identity, executionId, shared }) => ({
		cap: agentCapOf({
			node,
			toolCall,
			capValue: toolCall ? parameter('maxMessagesPerExecution', 0, DEFAULT_AGENT_MESSAGE_CAP) : undefined,
			workflowId: identity.workflowId,
			executionId,
			shared,
		}),
	}),
	async apply(round) {
		const cap = await round.run.cap.reserve(round.pending.length);
		round.watchers.push({
			settled: (posted) => {
				for (const [, outcome] of posted) if (!outcome.ok && !mayHaveBeenProcessed(outcome.error)) cap.release();
			},
			unposted: (units) => cap.release(units.length),
		});
	},
};
