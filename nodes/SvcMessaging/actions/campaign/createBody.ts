import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkHasRecipients, checkMessage, checkName, checkSenderId, contactGroupIdsOf, normalizeNumbers } from '../../rules/campaignFields';
import { perItemLines, withValue } from '../../rules/errorText';
import { normalizePhoneNumber } from '../../rules/phone';
import { analyzeMessage } from '../../rules/segments';
import { futureTime } from '../../rules/smsFields';
import { INVALID_INPUT, withErrorCode } from '../../transport/errors';
import { perItemParameter, placeholdersKept } from '../parameters';
import { isV2 } from '../versions';
import { readNumberOptions, readSenderId } from './campaignFields';

// Campaign Create's parameter reading and validation: nothing here sends (createRequests.ts does).

/** One campaign's checked request body, with what its balance check needs. */
export interface PreparedCampaign {
	body: IDataObject;
	creditsPerRecipient: number;
	/** distinct manual numbers; contact group members are counted by the service */
	manualCount: number;
}

export type RecipientsSource = 'list' | 'items' | 'none';

/** The campaign-level fields of item `i` (name, message, sender ID, groups, schedule), checked. */
export function prepareCampaign(ctx: IExecuteFunctions, i: number, manualNumbers: string[]): PreparedCampaign {
	const node = ctx.getNode();
	placeholdersKept(ctx, { message: 'Message' })(i);
	const name = checkName(ctx.getNode(), ctx.getNodeParameter('name', i), i);
	const message = checkMessage(ctx.getNode(), ctx.getNodeParameter('message', i), i);
	const senderId = readSenderId(ctx, i);
	checkSenderId(node, senderId, i, true);
	const contactGroupIds = [...new Set(contactGroupIdsOf(ctx.getNode(), ctx.getNodeParameter('contactGroupIds', i, ''), i))];
	checkHasRecipients(node, i, manualNumbers, contactGroupIds, ctx.getNodeParameter('recipientsSource', 0) === 'none');
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const scheduledAt = futureTime(ctx, isV2(ctx) ? ctx.getNodeParameter('scheduledAt', i, '') : options.scheduledAt, i);
	const numbers = [...new Set(manualNumbers)];
	const body: IDataObject = { name, message, senderId };
	if (numbers.length) body.manualNumbers = numbers;
	if (contactGroupIds.length) body.contactGroupIds = contactGroupIds;
	if (scheduledAt) body.scheduledAt = scheduledAt;
	return { body, creditsPerRecipient: analyzeMessage(message).credits, manualCount: numbers.length };
}

/** Item `i`'s own numbers: only "List of Numbers in Each Item" has any. */
export function itemNumbers(ctx: IExecuteFunctions, source: RecipientsSource, i: number): string[] {
	return source === 'list' ? normalizeNumbers(ctx.getNode(), ctx.getNodeParameter('phoneNumbers', i, ''), readNumberOptions(ctx, i), i) : [];
}

/**
 * "One Number per Input Item": every item's number, checked. One error names every invalid item:
 * the single campaign is for all items or none, so all of them have to be fixed first.
 */
export function numbersOfAllItems(ctx: IExecuteFunctions, items: INodeExecutionData[]): string[] {
	const options = readNumberOptions(ctx, 0);
	const phone = perItemParameter<unknown>(ctx, 'phoneNumber', '');
	const numbers: string[] = [];
	const invalid: Array<{ item: number; problem: string }> = [];
	for (let i = 0; i < items.length; i++) {
		const raw = phone(i);
		const result = normalizePhoneNumber(raw, options.defaultCountry, options.numberCheck);
		if (result.ok) numbers.push(result.e164);
		else invalid.push({ item: i, problem: `"Phone Number" ${withValue(result.rule, raw)}` });
	}
	if (invalid.length) {
		const lines = perItemLines(invalid.map((p) => ({ itemIndex: p.item, message: p.problem })));
		const error = new NodeOperationError(ctx.getNode(), `Item ${invalid[0].item}: ${invalid[0].problem}`, {
			itemIndex: invalid[0].item,
			description:
				`${invalid.length} of ${items.length} input item(s) have an invalid "Phone Number":\n${lines.join('\n')}\n\n` +
				'The campaign was not created: fix or filter out these items first.',
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	return numbers;
}
