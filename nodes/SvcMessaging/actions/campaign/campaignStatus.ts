import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { getCampaign } from '../../api/campaigns';
import { serviceErrorCode, wrapError } from '../../transport/errors';
import { itemLead, titledErrors } from '../../transport/errorTitles';

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'COMPLETED' | 'FAILED' | 'PAUSED' | 'CANCELLED';

/** What each operation may do, per docs/assumptions.md (the service answers 409 otherwise). */
export const ALLOWED_STATUSES = {
	update: ['DRAFT', 'SCHEDULED'],
	sendNow: ['DRAFT', 'SCHEDULED'],
	cancel: ['DRAFT', 'SCHEDULED'],
	delete: ['DRAFT', 'SCHEDULED', 'CANCELLED', 'COMPLETED', 'FAILED'],
} as const satisfies Record<string, readonly CampaignStatus[]>;

export type CampaignAction = keyof typeof ALLOWED_STATUSES;

const ACTION_NAMES: Record<CampaignAction, string> = {
	update: 'update',
	sendNow: 'send',
	cancel: 'cancel',
	delete: 'delete',
};

const ACTION_LABELS: Record<CampaignAction, string> = {
	update: 'Update',
	sendNow: 'Send Now',
	cancel: 'Cancel',
	delete: 'Delete',
};

/** What the user can do about a campaign in each status. */
const STATUS_ADVICE: Record<string, string> = {
	SENDING: 'The campaign is being sent right now; wait until it is COMPLETED (Get shows its progress).',
	COMPLETED: 'It has already been sent to all its recipients. To send the message again, create a new campaign.',
	CANCELLED: 'A cancelled campaign cannot be sent or changed again. Create a new campaign instead.',
	FAILED:
		'It failed while sending (for example, too few credits at its scheduled time). Create a new campaign to try again.',
	PAUSED: 'A paused campaign cannot be changed, sent or cancelled from here.',
};

/** An error naming the campaign, its status and what the operation allows. */
export function transitionError(
	ctx: IExecuteFunctions,
	campaign: { id: string; name?: unknown; status?: unknown },
	action: CampaignAction,
	itemIndex: number,
	cause?: NodeApiError,
): NodeApiError | NodeOperationError {
	const allowed = ALLOWED_STATUSES[action];
	const status = typeof campaign.status === 'string' && campaign.status ? campaign.status : undefined;
	const named = typeof campaign.name === 'string' && campaign.name ? `"${campaign.name}" (ID ${campaign.id})` : `ID ${campaign.id}`;
	const what = `Cannot ${ACTION_NAMES[action]} campaign ${named}: it is ${status ?? 'in a status that does not allow this'}`;
	const rule = `${ACTION_LABELS[action]} is allowed only for ${allowed.join(', ')} campaigns`;
	// Version 2: what happened in the title after the item, the rule and the advice in the description.
	const v2 = titledErrors(ctx.getNode());
	const message = v2 ? `${itemLead(itemIndex)}${what}` : `${what}. ${rule}`;
	const description = [v2 ? `${rule}.` : undefined, status ? STATUS_ADVICE[status] : undefined, 'Nothing was changed.'].filter(Boolean).join(' ');
	if (cause) {
		cause.message = message;
		cause.description = description;
		cause.context.itemIndex = itemIndex;
		cause.context.campaignStatus = status;
		return cause;
	}
	const error = new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
	// Same code as the service's 409, so workflows can branch on it either way.
	error.errorResponse = { code: 'INVALID_CAMPAIGN_STATUS' };
	error.context.campaignStatus = status;
	return error;
}

/** Throws the transition error when `status` does not allow the action (checked before a request is sent). */
export function assertStatus(ctx: IExecuteFunctions, campaign: IDataObject, id: string, action: CampaignAction, i: number) {
	const status = String(campaign.status ?? '');
	if (status && !(ALLOWED_STATUSES[action] as readonly string[]).includes(status)) {
		throw transitionError(ctx, { id, name: campaign.name, status }, action, i);
	}
}

/**
 * Runs a request on one campaign; the service's 409 INVALID_CAMPAIGN_STATUS becomes an error that
 * names the campaign (read again for its name and current status) and the allowed statuses.
 */
export async function campaignRequest<T = IDataObject>(
	ctx: IExecuteFunctions,
	id: string,
	action: CampaignAction,
	i: number,
	request: () => Promise<T>,
): Promise<T> {
	try {
		return await request();
	} catch (error) {
		if (!(error instanceof NodeApiError) || serviceErrorCode(error) !== 'INVALID_CAMPAIGN_STATUS') throw wrapError(ctx, error, i);
		let campaign: IDataObject = {};
		try {
			campaign = await getCampaign(ctx, id, i);
		} catch {
			// The status is also in the service's message ("Campaign 7 is COMPLETED; …").
			campaign = { status: /\bis ([A-Z]+)\b/.exec(String(error.errorResponse?.message ?? ''))?.[1] };
		}
		throw transitionError(ctx, { id, name: campaign.name, status: campaign.status }, action, i, error);
	}
}
