import { createHash } from 'crypto';
import { DataDeduplicationService } from 'n8n-core';
import type { DeduplicationItemTypes, DeduplicationScope, ICheckProcessedContextData, ICheckProcessedOptions, IDataDeduplicator, IDeduplicationOutput } from 'n8n-workflow';

import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';
import type { ProcessedData } from '../../nodes/SvcMessaging/stores/nodeRow';

/**
 * n8n's processed-data store (packages/cli's DeduplicationHelper, entries mode, as n8n 2.41.1 has
 * it) for n8n-core's contexts in jest and the bench: the same context names, md5 hashes, maxEntries
 * trimming and whole-row reads and writes; the row is kept as its JSON text, as n8n's database
 * column keeps it, so each call costs what n8n's serialisation costs. Real n8n (e2e) uses its own.
 */
class ProcessedDataRows implements IDataDeduplicator {
	readonly rows = new Map<string, string>();
	calls = 0;
	/** bytes of the rows written (each call rewrites its row whole, as n8n's does) */
	bytesWritten = 0;
	/** time spent in this store's calls (hashing and the row's JSON, what n8n's own store spends too) */
	busyMs = 0;
	/** when set, every call fails with it (the database unreachable) */
	failWith?: Error;
	/**
	 * when set, the next write that finds its row absent fails as n8n's insert does on PostgreSQL
	 * when another process (queue mode's other worker) inserted the row first, holding these marks
	 */
	otherProcessInsertsFirst?: string[];

	private key(scope: DeduplicationScope, { workflow, node }: ICheckProcessedContextData) {
		return ProcessedDataRows.rowKey(String(workflow.id), scope === 'node' ? node!.id : undefined);
	}

	private static rowKey(workflowId: string, nodeId: string | undefined) {
		return `${workflowId}\u0000${nodeId === undefined ? '' : `n:${nodeId}`}`;
	}

	private read(key: string): { mode: string; data: string[] } | undefined {
		this.calls++;
		if (this.failWith) throw this.failWith;
		const text = this.rows.get(key);
		return text === undefined ? undefined : JSON.parse(text);
	}

	private write(key: string, row: { mode: string; data: string[] }) {
		const text = JSON.stringify(row);
		this.bytesWritten += text.length;
		this.rows.set(key, text);
	}

	private static hash(value: DeduplicationItemTypes) {
		return createHash('md5').update(value.toString()).digest('base64');
	}

	async checkProcessedAndRecord(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error('only entries mode is played here');
		const started = performance.now();
		const key = this.key(scope, context);
		const existing = this.read(key);
		if (!existing && this.otherProcessInsertsFirst) {
			const theirs = this.otherProcessInsertsFirst;
			this.otherProcessInsertsFirst = undefined;
			this.rows.set(key, JSON.stringify({ mode: options.mode, data: theirs.map(ProcessedDataRows.hash) }));
			throw Object.assign(new Error('duplicate key value violates unique constraint "PK_ca04b9d8dc72de268fe07a65773"'), { code: '23505' });
		}
		const row = existing ?? { mode: options.mode, data: [] };
		const known = new Set(row.data);
		const out: IDeduplicationOutput = { new: [], processed: [] };
		items.forEach((item) => {
			const hash = ProcessedDataRows.hash(item);
			if (known.has(hash)) out.processed.push(item);
			else {
				out.new.push(item);
				row.data.push(hash);
			}
		});
		if (options.maxEntries) row.data.splice(0, row.data.length - options.maxEntries);
		this.write(key, row);
		this.busyMs += performance.now() - started;
		return out;
	}

	async checkProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<IDeduplicationOutput> {
		const known = new Set(this.read(this.key(scope, context))?.data ?? []);
		const out: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) (known.has(ProcessedDataRows.hash(item)) ? out.processed : out.new).push(item);
		return out;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		const started = performance.now();
		const key = this.key(scope, context);
		const row = this.read(key);
		if (!row) return;
		for (const item of items) {
			const index = row.data.indexOf(ProcessedDataRows.hash(item));
			if (index !== -1) row.data.splice(index, 1);
		}
		this.write(key, row);
		this.busyMs += performance.now() - started;
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		this.rows.delete(this.key(scope, context));
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<number> {
		return this.read(this.key(scope, context))?.data.length ?? 0;
	}

	/** What the store did since the last call (for the bench), and the rows' size. */
	takeStats(): { calls: number; busyMs: number; rowsMb: number; bytesWritten: number } {
		let bytes = 0;
		for (const text of this.rows.values()) bytes += text.length;
		const stats = { calls: this.calls, busyMs: this.busyMs, rowsMb: bytes / 1024 / 1024, bytesWritten: this.bytesWritten };
		this.calls = 0;
		this.busyMs = 0;
		this.bytesWritten = 0;
		return stats;
	}

	/** Whether the row of `workflowId`'s node `nodeId` holds `mark`. */
	holds(workflowId: string, nodeId: string, mark: string): boolean {
		const text = this.rows.get(ProcessedDataRows.rowKey(workflowId, nodeId));
		return text !== undefined && (JSON.parse(text) as { data: string[] }).data.includes(ProcessedDataRows.hash(mark));
	}

	/** Marks held in all rows. */
	marks(): number {
		let n = 0;
		for (const text of this.rows.values()) n += (JSON.parse(text) as { data: string[] }).data.length;
		return n;
	}
}

export const processedData = new ProcessedDataRows();

/** n8n restarted after a kill: its database as it was at the kill (`atKill`, a copy of the rows), this process's ledger forgotten. */
export function restartWithRows(atKill: Map<string, string>): void {
	processedData.rows.clear();
	for (const [row, text] of atKill) processedData.rows.set(row, text);
	clearLocalLedger();
}

/** Installs the store in this module registry's n8n-core (once). */
export function installProcessedData(): void {
	const service = DataDeduplicationService as unknown as { instance?: unknown };
	if (!service.instance) void DataDeduplicationService.init(processedData);
}
installProcessedData();

/** n8n's node-facing processed-data helpers of one workflow's node, over this store, and the key the node's row goes by. */
export function nodeRowHelpers(workflowId: string, nodeId: string): { helpers: ProcessedData; scopeKey: string; workflowId: string } {
	const context = { workflow: { id: workflowId }, node: { id: nodeId } } as unknown as ICheckProcessedContextData;
	const helpers: ProcessedData = {
		checkProcessedAndRecord: async (items, scope, options) => await processedData.checkProcessedAndRecord(items, scope, context, options),
		removeProcessed: async (items, scope) => await processedData.removeProcessed(items, scope, context),
		getProcessedDataCount: async (scope) => await processedData.getProcessedDataCount(scope, context),
	};
	return { helpers, scopeKey: `${workflowId}\u0000${nodeId}`, workflowId };
}

