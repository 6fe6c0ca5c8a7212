import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { sendSummary, sharedErrorMessage } from '../rules/errorText';
import { errorCodeOf, INVALID_INPUT, SEVERAL_ERRORS, withErrorCode, wrapError } from '../transport/errors';

/**
 * What became of one item (or one recipient of Send Bulk): its output json, or its error. The one
 * shape of success and failure across the executor, the sending layer and the operations.
 */
export type Outcome = Accepted | ItemFailure;

export interface Accepted {
	ok: true;
	/** the output item's json */
	json: IDataObject;
}

export interface ItemFailure {
	ok: false;
	itemIndex: number;
	error: NodeApiError | NodeOperationError;
}

/** What shaping a send's outputs needs of its node run (a SendRun has it). */
export interface RunFacts {
	readonly node: INode;
	readonly continueOnFail: boolean;
}

/** A prepared item that failed its checks (prepared requests have a body; a failure has none). */
export function isFailure(prepared: unknown): prepared is ItemFailure {
	return typeof prepared === 'object' && prepared !== null && 'error' in prepared && 'itemIndex' in prepared && !('body' in prepared);
}

/**
 * After a send: with "Continue On Fail" the rejected items are output (see rejectedItem); without
 * it one error names every item that was not accepted and says the accepted ones stay sent.
 */
export function finishSend(
	run: RunFacts,
	output: INodeExecutionData[],
	failures: ItemFailure[],
	acceptedCount: number,
	noun = 'message',
): INodeExecutionData[] {
	if (failures.length === 0 || run.continueOnFail) return output;
	const first = failures[0].error;
	// One failure, or one call's failure shared by all its recipients: the service's own error says it best.
	if (acceptedCount === 0 && failures.every((f) => f.error === first)) {
		const items = [...new Set(failures.map((f) => f.itemIndex))];
		first.message = sharedErrorMessage(first.message, failures[0].itemIndex, items);
		throw first;
	}
	const text = sendSummary(
		failures.map((f) => ({ itemIndex: f.itemIndex, message: f.error.message, serviceMessage: serviceMessageOf(f.error) })),
		acceptedCount,
		noun,
	);
	const summary = new NodeOperationError(run.node, text.message, { description: text.description });
	// The summary's code is its items' code when they share one (e.g. INSUFFICIENT_CREDITS), so a
	// caller deciding on it (an AI agent) sees what happened rather than a generic failure.
	const codes = new Set(failures.map((f) => errorCodeOf(f.error) ?? INVALID_INPUT));
	throw withErrorCode(summary, codes.size === 1 ? [...codes][0] : SEVERAL_ERRORS);
}

function serviceMessageOf(error: NodeApiError | NodeOperationError): string | undefined {
	const said = error.context.serviceMessage;
	return typeof said === 'string' ? said : undefined;
}

export function failureOf(ctx: Pick<IExecuteFunctions, 'getNode'>, error: unknown, itemIndex: number): ItemFailure {
	return { ok: false, itemIndex, error: wrapError(ctx, error, itemIndex) };
}

export function outputFailure(run: RunFacts, failure: ItemFailure, extra: IDataObject = {}): INodeExecutionData {
	return rejectedItem(failure.error, failure.itemIndex, extra, run.node.onError === 'continueErrorOutput');
}

/**
 * A message that was not accepted. Deliberately no `json.error`: n8n's "Retry On Fail" re-runs the
 * whole node when the first output item has one, which would re-send every accepted message.
 * n8n's `error` property is set only for "On Error → Continue (using error output)": it routes the
 * item to the error output, but n8n also replaces the item's fields with `{ error }`, which would
 * drop `accepted`, `errorCode` and the phone number from the regular output.
 */
export function rejectedItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	extra: IDataObject = {},
	toErrorOutput = false,
): INodeExecutionData {
	// The service's code, else this package's own (UNKNOWN_OUTCOME, REDIS_UNAVAILABLE, LOGIN_…);
	// input refused by the rules keeps its established label VALIDATION_ERROR.
	const code = errorCodeOf(error);
	return {
		json: {
			accepted: false,
			...extra,
			errorCode: code === undefined || code === INVALID_INPUT ? 'VALIDATION_ERROR' : code,
			errorMessage: error.message,
			...(error.description ? { errorDescription: error.description } : {}),
		},
		...(toErrorOutput ? { error } : {}),
		pairedItem: { item: itemIndex },
	};
}

/** What a unit would have posted, without its send time and cost: the output of a unit nothing was sent for. */
export function withoutCost(priced: IDataObject): IDataObject {
	const json = { ...priced };
	for (const key of ['sendAt', 'credits', 'segments']) delete json[key];
	return json;
}
