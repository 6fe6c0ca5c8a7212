import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCampaign, sendCampaignNow } from '../../api/campaigns';
import { analyzeMessage } from '../../rules/segments';
import { balanceCheckField, checkCampaignBalance } from './campaignCredits';
import { campaignIdLocator, readCampaignId } from './campaignFields';
import { assertStatus, campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to send now. Only DRAFT and SCHEDULED campaigns can be sent.'),
	balanceCheckField('the campaign'),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['sendNow'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const id = readCampaignId(this, i);
	if (this.getNodeParameter('balanceCheck', i, false)) {
		// The estimate needs the message and the recipient count; the status is checked on the way.
		const campaign = await getCampaign(this, id, i);
		assertStatus(this, campaign, id, 'sendNow', i);
		const perRecipient = analyzeMessage(String(campaign.message ?? '')).credits;
		await checkCampaignBalance(
			this,
			perRecipient,
			Number(campaign.totalRecipients) || 0,
			i,
			`Campaign "${String(campaign.name)}" (ID ${id}) was not sent and stays ${String(campaign.status)}; nothing was charged.`,
		);
	}
	// No request body. The service answers with the campaign, now SENDING.
	const sent: IDataObject = await campaignRequest(this, id, 'sendNow', i, async () =>
		await sendCampaignNow(this, id, i),
	);
	return sent;
}
