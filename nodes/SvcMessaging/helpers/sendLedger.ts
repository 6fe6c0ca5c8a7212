import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * Remembers, per execution, node, run and item, what a send operation already did with a given
 * payload. n8n's "Retry On Fail" re-runs the node with the same input: accepted messages (and
 * those whose fate is unknown after a dropped connection) are then reported again instead of
 * being sent a second time. Bounded: the oldest entries go first.
 */
const MAX_ENTRIES = 200_000;
const ledger = new Map<string, LedgerEntry>();

export type LedgerEntry =
	| { outcome: 'accepted'; json: IDataObject }
	| { outcome: 'unknown'; message: string; description?: string };

export interface SendLedger {
	get(itemIndex: number, payload: string): LedgerEntry | undefined;
	set(itemIndex: number, payload: string, entry: LedgerEntry): void;
}

export function sendLedger(ctx: IExecuteFunctions): SendLedger {
	const executionId = ctx.getExecutionId() ?? 'no-execution';
	const runIndex = ctx.getWorkflowDataProxy(0).$runIndex ?? 0;
	const scope = `${executionId}\u0000${ctx.getNode().id}\u0000${runIndex}`;
	const key = (itemIndex: number, payload: string) => `${scope}\u0000${itemIndex}\u0000${payload}`;
	return {
		get: (itemIndex, payload) => ledger.get(key(itemIndex, payload)),
		set(itemIndex, payload, entry) {
			ledger.set(key(itemIndex, payload), entry);
			if (ledger.size > MAX_ENTRIES) {
				const oldest = ledger.keys().next().value;
				if (oldest !== undefined) ledger.delete(oldest);
			}
		},
	};
}
