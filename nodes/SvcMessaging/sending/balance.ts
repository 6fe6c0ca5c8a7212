import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INSUFFICIENT_CREDITS, withErrorCode } from '../transport/errors';

/**
 * Stops before anything is sent when the account has fewer credits than the estimate.
 * `readBalance`: api/account.ts's getBalance, bound to the node run's context.
 */
export async function assertBalance(node: INode, readBalance: () => Promise<IDataObject>, creditsNeeded: number): Promise<number> {
	const balance = await readBalance();
	const available = Number(balance?.credits);
	if (!Number.isFinite(available)) {
		throw new NodeOperationError(node, 'Could not read the account balance: the service answered without a "credits" figure', {
			description: 'Nothing was sent. Turn off "Check Balance Before Sending" to send without the check.',
		});
	}
	if (available < creditsNeeded) {
		const error = new NodeOperationError(
			node,
			`INSUFFICIENT_CREDITS: this send needs about ${creditsNeeded} credits but the account has ${available}. Nothing was sent.`,
			{ description: 'Top up credits in the dashboard. The estimate counts one credit per SMS segment of each message.' },
		);
		throw withErrorCode(error, INSUFFICIENT_CREDITS);
	}
	return available;
}
