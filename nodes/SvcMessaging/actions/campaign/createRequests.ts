import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { createCampaign as postCampaign, deleteCampaign, updateCampaign } from '../../api/campaigns';
import { messageIdentities, type SendLedger } from '../../sending/ledger';
import { mayHaveBeenProcessed } from '../../transport/errors';
import { wrapError } from '../executor';
import { checkCampaignBalance, messagePreview } from './campaignCredits';
import type { PreparedCampaign } from './createBody';

/**
 * With "Check Balance Before Sending": numbers alone are counted before anything is created. With
 * contact groups only the service knows the recipient count, so the campaign is created as a DRAFT
 * first (a draft sends and charges nothing), checked against its totalRecipients, then scheduled
 * — or deleted again when the credits are short.
 */
async function createChecked(ctx: IExecuteFunctions, p: PreparedCampaign, i: number): Promise<IDataObject> {
	if (!p.body.contactGroupIds) {
		await checkCampaignBalance(ctx, p.creditsPerRecipient, p.manualCount, i, 'The campaign was not created and nothing was sent.');
		return await postCampaign(ctx, p.body, i);
	}
	const { scheduledAt, ...draftBody } = p.body;
	const draft = await postCampaign(ctx, draftBody, i);
	const id = String(draft.id);
	try {
		await checkCampaignBalance(
			ctx,
			p.creditsPerRecipient,
			Number(draft.totalRecipients) || 0,
			i,
			`The campaign was not kept (its draft, ID ${id}, was deleted again) and nothing was sent.`,
		);
	} catch (error) {
		try {
			await deleteCampaign(ctx, id, i);
		} catch {
			if (error instanceof NodeOperationError || error instanceof NodeApiError) {
				error.description = `${error.description ?? ''} Deleting the draft campaign ${id} failed as well: delete it yourself.`.trim();
			}
		}
		throw wrapError(ctx, error, i);
	}
	if (!scheduledAt) return draft;
	try {
		return await updateCampaign(ctx, id, { scheduledAt }, i);
	} catch (error) {
		const wrapped = wrapError(ctx, error, i);
		wrapped.description = `The campaign was created as DRAFT (ID ${id}) but could not be scheduled; nothing was sent. ${wrapped.description ?? ''}`.trim();
		throw wrapped;
	}
}

/** Creates one campaign; a retried node run returns the campaign it already created for the same payload. */
export async function createCampaign(ctx: IExecuteFunctions, ledger: SendLedger, p: PreparedCampaign, i: number): Promise<IDataObject> {
	const [identity] = messageIdentities([`${i}\u0000${JSON.stringify(p.body)}`]);
	const [known] = ledger.consult ? await ledger.lookup([identity]) : [];
	if (known?.outcome === 'accepted') return known.json;
	if (known?.outcome === 'unknown') {
		throw new NodeOperationError(ctx.getNode(), known.message, { itemIndex: i, description: known.description });
	}
	let campaign: IDataObject;
	try {
		campaign = ctx.getNodeParameter('balanceCheck', i, false) ? await createChecked(ctx, p, i) : await postCampaign(ctx, p.body, i);
	} catch (error) {
		const wrapped = wrapError(ctx, error, i);
		if (mayHaveBeenProcessed(wrapped)) {
			await ledger.record([[identity, { outcome: 'unknown', message: wrapped.message, description: wrapped.description ?? undefined }]]);
		}
		throw wrapped;
	}
	const json: IDataObject = { ...campaign, ...messagePreview(p.body.message, campaign.totalRecipients) };
	await ledger.record([[identity, { outcome: 'accepted', json }]]);
	return json;
}
