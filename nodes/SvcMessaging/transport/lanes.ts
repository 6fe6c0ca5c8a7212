/**
 * Lanes: waiting requests of different lanes take turns in a key's limiter (limiter.ts), so
 * concurrent executions on one key get an equal share.
 */
type LaneContext = { getExecutionId?: () => string | undefined; getNode: () => { name: string } };
/** Per node run: n8n's getNode() deep-copies the whole node (its parameters) on every call. */
const laneNames = new WeakMap<LaneContext, string>();

/** The lane of a node's requests: its execution and node (a workflow's executions never share one). */
export function laneOf(ctx: LaneContext): string {
	let lane = laneNames.get(ctx);
	if (lane === undefined) {
		lane = `${ctx.getExecutionId?.() ?? ''}\u0000${ctx.getNode().name}`;
		laneNames.set(ctx, lane);
	}
	return lane;
}
