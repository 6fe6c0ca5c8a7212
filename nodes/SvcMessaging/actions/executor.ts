import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failureOf, isFailure, type ItemFailure } from '../sending/outcomes';
import { wrapError } from '../transport/errors';

/**
 * How an operation runs, chosen by what its file exports:
 * - a lookup exports `execute(i)`: one item's result (or a list of results);
 * - a send exports `preparer()` (the run's reader of one item: reads and checks it, sends nothing) and `send(prepared)`,
 *   so that every item is checked before anything is sent; Send and Wait also exports `resume`,
 *   which takes over when the items are a waiting execution's messages.
 */
export interface LookupOperation {
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

export interface SendOperation<P = unknown> {
	/**
	 * Built once per node run: reads and checks one item (sends nothing). It may keep what the run's
	 * items share (parameters without expressions, the last item's checks, looked-up templates), and
	 * may answer at once (no promise per item: Send Bulk prepares 100,000 items).
	 */
	preparer(this: IExecuteFunctions): (itemIndex: number) => P | Promise<P>;
	send(this: IExecuteFunctions, prepared: Array<P | ItemFailure>, items: INodeExecutionData[]): Promise<INodeExecutionData[] | INodeExecutionData[][]>;
	resume?(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][] | undefined>;
	/** whether `send` answers with several outputs (Send and Wait: Delivered, Not Delivered) */
	multipleOutputs?: boolean;
}

export type Operation = LookupOperation | SendOperation;

/** Runs an operation over the input items: the one per-item loop of the node. */
export async function runOperation(ctx: IExecuteFunctions, operation: Operation, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	try {
		return await runEach(ctx, operation, items);
	} catch (error) {
		throw namedOnce(error);
	}
}

/** A message that names its item(s) itself: `Item 3: …`, `Items 0, 1, 2 …`. */
const NAMES_ITEMS = /^Items? \d/;

/**
 * The error that stops the node names its item once. n8n's editor adds " [item N]" to a message
 * whose error has an item index unless the message holds "item N" (lower case): our messages start
 * with "Item N:", so the index is left out of an error whose message names the item already.
 */
function namedOnce(error: unknown): unknown {
	const context = (error as { context?: { itemIndex?: number } } | undefined)?.context;
	if (context?.itemIndex !== undefined && NAMES_ITEMS.test(String((error as Error).message))) delete context.itemIndex;
	return error;
}

async function runEach(ctx: IExecuteFunctions, operation: Operation, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	if (!('preparer' in operation)) return [await lookupEach(ctx, items, operation)];
	const resumed = operation.resume ? await operation.resume.call(ctx, items) : undefined;
	if (resumed) return resumed;
	const prepared = await prepareEach(ctx, items, operation.preparer.call(ctx));
	const output = await operation.send.call(ctx, prepared, items);
	return operation.multipleOutputs ? (output as INodeExecutionData[][]) : [output as INodeExecutionData[]];
}

/**
 * Lookups, lists and deletes: each item's result or, with "Continue On Fail", n8n's usual
 * `{ error }` item; every output item is paired to its input.
 */
async function lookupEach(ctx: IExecuteFunctions, items: INodeExecutionData[], operation: LookupOperation): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const result = await operation.execute.call(ctx, i);
			for (const json of Array.isArray(result) ? result : [result]) {
				out.push({ json, pairedItem: { item: i } });
			}
		} catch (error) {
			const wrapped = wrapError(ctx, error, i);
			if (!ctx.continueOnFail()) throw wrapped;
			out.push({ json: { error: wrapped.message, description: wrapped.description ?? undefined }, pairedItem: { item: i } });
		}
	}
	return out;
}

/**
 * Prepares every item first: nothing is sent while any item is invalid (unless Continue On
 * Fail, when the invalid items go to `send` as failures, to be output as rejected items).
 */
async function prepareEach<P>(ctx: IExecuteFunctions, items: INodeExecutionData[], prepare: (i: number) => P | Promise<P>): Promise<Array<P | ItemFailure>> {
	const prepared: Array<P | ItemFailure> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const result = prepare(i);
			prepared.push(result instanceof Promise ? await result : result);
		} catch (error) {
			prepared.push(failureOf(ctx, error, i));
		}
	}
	const invalid = prepared.find(isFailure);
	if (invalid && !ctx.continueOnFail()) throw invalid.error;
	return prepared;
}
