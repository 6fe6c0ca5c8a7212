import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getBalance } from '../api/account';
import { INSUFFICIENT_CREDITS, withErrorCode } from '../transport/errors';

/** Stops before anything is sent when the account has fewer credits than the estimate. */
export async function assertBalance(ctx: IExecuteFunctions, creditsNeeded: number): Promise<number> {
	const balance = await getBalance(ctx);
	const available = Number(balance?.credits);
	if (!Number.isFinite(available)) {
		throw new NodeOperationError(ctx.getNode(), 'Could not read the account balance: the service answered without a "credits" figure', {
			description: 'Nothing was sent. Turn off "Check Balance Before Sending" to send without the check.',
		});
	}
	if (available < creditsNeeded) {
		const error = new NodeOperationError(
			ctx.getNode(),
			`INSUFFICIENT_CREDITS: this send needs about ${creditsNeeded} credits but the account has ${available}. Nothing was sent.`,
			{ description: 'Top up credits in the dashboard. The estimate counts one credit per SMS segment of each message.' },
		);
		throw withErrorCode(error, INSUFFICIENT_CREDITS);
	}
	return available;
}
