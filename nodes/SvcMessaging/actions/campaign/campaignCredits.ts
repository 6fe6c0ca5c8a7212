import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getBalance } from '../../api/account';
import { analyzeMessage } from '../../rules/segments';
import { assertBalance } from '../../sending/balance';
import { INSUFFICIENT_CREDITS, ownErrorCode, wrapError } from '../../transport/errors';

export const balanceCheckField = (what: string): INodeProperties => ({
	displayName: 'Check Balance Before Sending',
	name: 'balanceCheck',
	type: 'boolean',
	default: false,
	description: `Whether to compare the credits ${what} needs (segments of the message × recipients) with the account balance first, and stop with an INSUFFICIENT_CREDITS error before anything is sent when they are short`,
});

/**
 * "Check Balance Before Sending": stops with INSUFFICIENT_CREDITS (needed vs available) when the
 * account has fewer credits than the campaign's estimate. `outcome` says what was (not) done.
 */
export async function checkCampaignBalance(
	ctx: IExecuteFunctions,
	creditsPerRecipient: number,
	recipients: number,
	itemIndex: number,
	outcome: string,
): Promise<void> {
	try {
		await assertBalance(ctx.getNode(), async () => await getBalance(ctx), creditsPerRecipient * recipients);
	} catch (error) {
		if (error instanceof NodeOperationError && ownErrorCode(error) === INSUFFICIENT_CREDITS) {
			error.context.itemIndex = itemIndex;
			error.errorResponse = { code: 'INSUFFICIENT_CREDITS' };
			error.description =
				`${outcome} Estimate: ${creditsPerRecipient} credit(s) per recipient (one per SMS segment of the message) × ` +
				`${recipients} recipient(s). Top up credits in the dashboard, or turn off "Check Balance Before Sending".`;
		}
		throw wrapError(ctx, error, itemIndex);
	}
}

/** Encoding, segments and the credit estimate of a campaign's message, added to its output. */
export function messagePreview(message: unknown, totalRecipients: unknown): IDataObject {
	if (typeof message !== 'string' || message === '') return {};
	const stats = analyzeMessage(message);
	const preview: IDataObject = {
		encoding: stats.encoding,
		characters: stats.characters,
		segments: stats.segments,
		creditsPerRecipient: stats.credits,
	};
	if (typeof totalRecipients === 'number') preview.estimatedCredits = stats.credits * totalRecipients;
	return preview;
}
