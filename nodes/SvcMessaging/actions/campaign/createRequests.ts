import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { createCampaign as postCampaign, deleteCampaign, updateCampaign, type BeforeSend } from '../../api/campaigns';
import { messageIdentities } from '../../sending/ledger/ledger';
import { sendOnce, type Posted, type SendUnit, type UnitOutcome } from '../../sending/round';
import { openSendRun } from '../../sending/sendRun';
import { UNKNOWN_OUTCOME, withErrorCode, wrapError } from '../../transport/errors';
import { checkCampaignBalance, messagePreview } from './campaignCredits';
import type { PreparedCampaign } from './createBody';

/**
 * With "Check Balance Before Sending": numbers alone are counted before anything is created. With
 * contact groups only the service knows the recipient count, so the campaign is created as a DRAFT
 * first (a draft sends and charges nothing), checked against its totalRecipients, then scheduled
 * — or deleted again when the credits are short.
 */
async function createChecked(ctx: IExecuteFunctions, p: PreparedCampaign, i: number, begin: BeforeSend): Promise<IDataObject> {
	if (!p.body.contactGroupIds) {
		await checkCampaignBalance(ctx, p.creditsPerRecipient, p.manualCount, i, 'The campaign was not created and nothing was sent.');
		return await postCampaign(ctx, p.body, i, begin);
	}
	const { scheduledAt, ...draftBody } = p.body;
	const draft = await postCampaign(ctx, draftBody, i, begin);
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

export interface CampaignToCreate {
	itemIndex: number;
	prepared: PreparedCampaign;
}

type CampaignUnit = CampaignToCreate & SendUnit & { suppressedNumbers?: string[] };

/**
 * Creates the campaigns one after another through the send-once round: a retried node run returns
 * the campaign it already created for the same item and payload. Without Continue On Fail the first
 * failure stops the rest (nothing after it is created) and fails the node.
 */
export async function createCampaigns(ctx: IExecuteFunctions, campaigns: CampaignToCreate[]): Promise<Map<CampaignToCreate, UnitOutcome>> {
	const units: CampaignUnit[] = campaigns.map((c) => ({ ...c, identity: messageIdentities([`${c.itemIndex}\u0000${JSON.stringify(c.prepared.body)}`])[0] }));
	const run = await openSendRun(ctx, { kind: 'account' });
	const outcomes = await sendOnce(run, units, {
		repeatedAsIs: true,
		noun: 'campaign',
		refuseUnknown: (earlier, unit) =>
			withErrorCode(new NodeOperationError(run.node, earlier.message, { itemIndex: unit.itemIndex, description: earlier.description }), UNKNOWN_OUTCOME),
		// One after another; without Continue On Fail the first failure stops the rest.
		window: 1,
		stopOnFailure: !run.continueOnFail,
		postsOf: (pending) => pending,
		unitsOf: (unit) => [unit],
		// Contact groups' members are counted by the service only: no estimate before creating.
		creditsOf: ({ prepared: p }) => (p.body.contactGroupIds ? undefined : p.creditsPerRecipient * p.manualCount),
		price: ({ prepared: p, suppressedNumbers }) => ({
			...(suppressedNumbers && { suppressedNumbers }),
			created: false,
			name: p.body.name,
			senderId: p.body.senderId,
			manualRecipients: p.manualCount,
			...(p.body.contactGroupIds ? { contactGroupIds: p.body.contactGroupIds } : {}),
			...messagePreview(p.body.message, p.body.contactGroupIds ? undefined : p.manualCount),
			sendAt: p.body.scheduledAt ?? 'draft (Send Now)',
		}),
		// The do-not-send list takes listed manual numbers out (contact groups' members are known to the service only).
		numbersOfUnit: {
			numbersOf: ({ prepared: { body } }) => (body.manualNumbers as string[] | undefined) ?? [],
			reachesOthers: ({ prepared: { body } }) => body.contactGroupIds !== undefined,
			keepOnly: (unit, kept, dropped) => {
				const body = { ...unit.prepared.body };
				delete body.manualNumbers;
				unit.prepared = { ...unit.prepared, body: kept.length ? { ...body, manualNumbers: kept } : body, manualCount: kept.length };
				unit.suppressedNumbers = dropped;
			},
		},
		// Sending Hours judge a scheduled campaign's time in each of its recipients' zones (a draft is not judged).
		recipientsOf: ({ prepared: { body } }) =>
			body.scheduledAt
				? { scheduledAt: body.scheduledAt as string, numbers: (body.manualNumbers as string[] | undefined) ?? [], contactGroups: body.contactGroupIds !== undefined }
				: undefined,
		scheduledAtOf: ({ prepared: { body } }) => body.scheduledAt as string | undefined,
		post: async (unit, begin): Promise<Posted<CampaignUnit>> => {
			const { itemIndex: i, deferred, suppressedNumbers } = unit;
			// Moved into the next opening: created with that time (the identity keeps the time asked for).
			const p: PreparedCampaign = deferred ? { ...unit.prepared, body: { ...unit.prepared.body, scheduledAt: deferred.scheduledAt } } : unit.prepared;
			try {
				const campaign = ctx.getNodeParameter('balanceCheck', i, false) ? await createChecked(ctx, p, i, begin) : await postCampaign(ctx, p.body, i, begin);
				return [[unit, { ok: true, json: { ...campaign, ...messagePreview(p.body.message, campaign.totalRecipients), ...deferred, ...(suppressedNumbers && { suppressedNumbers }) } }]];
			} catch (error) {
				return [[unit, run.failure(error, i)]];
			}
		},
	});
	const first = outcomes.find((o) => !o.ok);
	if (first && !first.ok && !run.continueOnFail) throw first.error;
	await run.finish();
	return new Map(units.map((unit, n) => [campaigns[n], outcomes[n]]));
}
