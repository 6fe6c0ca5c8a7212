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

/** Waiting entries per lane, taken in turns: one of each lane with entries, oldest first. */
export class LaneTurns<T> {
	private readonly lanes = new Map<string, T[]>();
	private readonly turns: string[] = [];
	waiting = 0;

	add(lane: string, entry: T): void {
		const queue = this.lanes.get(lane);
		if (queue) queue.push(entry);
		else {
			this.lanes.set(lane, [entry]);
			this.turns.push(lane);
		}
		this.waiting++;
	}

	take(): T | undefined {
		const lane = this.turns.shift();
		if (lane === undefined) return undefined;
		const queue = this.lanes.get(lane)!;
		const entry = queue.shift()!;
		if (queue.length) this.turns.push(lane);
		else this.lanes.delete(lane);
		this.waiting--;
		return entry;
	}
}
