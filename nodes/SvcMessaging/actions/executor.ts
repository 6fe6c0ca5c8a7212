import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { serviceErrorCode } from '../transport/errors';

export function wrapError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * For operations that send nothing (lookups, lists, deletes): each item's result or, with
 * "Continue On Fail", n8n's usual `{ error }` item; every output item is paired to its input.
 */
export async function mapItems(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	run: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const result = await run(i);
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
	const code = serviceErrorCode(error);
	return {
		json: {
			accepted: false,
			...extra,
			errorCode: code ?? 'VALIDATION_ERROR',
			errorMessage: error.message,
			...(error.description ? { errorDescription: error.description } : {}),
		},
		...(toErrorOutput ? { error } : {}),
		pairedItem: { item: itemIndex },
	};
}
