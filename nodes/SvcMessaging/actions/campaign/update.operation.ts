import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { updateCampaign } from '../../api/campaigns';
import {
	checkCampaignUpdate,
	checkMessage,
	checkName,
	checkSenderId,
	checkSomethingToUpdate,
	contactGroupIdsOf,
	normalizeNumbers,
} from '../../rules/campaignFields';
import { futureTime } from '../../rules/smsFields';
import { defaultCountryOption, numberCheckOption, scheduledAtOption } from '../common.descriptions';
import { placeholdersKept } from '../parameters';
import { messagePreview } from './campaignCredits';
import {
	apiKeyUseNotice,
	campaignIdLocator,
	readCampaignId,
	readNumberOptions,
	readSenderId,
	senderIdFields,
	senderIdPickerAlwaysOn,
	useApiKeyField,
} from './campaignFields';
import { onlyV1, onlyV2 } from '../versions';
import { campaignRequest } from './campaignStatus';

const properties: INodeProperties[] = [
	campaignIdLocator('The campaign to change. Only DRAFT and SCHEDULED campaigns can be updated.'),
	...onlyV1(useApiKeyField),
	...onlyV2(senderIdPickerAlwaysOn, apiKeyUseNotice),
	...senderIdFields('New sender ID (an approved sender ID of the account). Leave empty to keep the current one.', false),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Contact Group IDs',
				name: 'contactGroupIds',
				type: 'string',
				default: '',
				placeholder: '1, 2',
				description:
					"Replaces the campaign's contact groups: IDs separated by commas, or an expression giving an array. Empty removes them.",
			},
			{
				displayName: 'Message',
				name: 'message',
				type: 'string',
				default: '',
				typeOptions: { rows: 4 },
				description: 'New message, up to 1600 characters (160 GSM-7 characters or 70 Unicode characters per segment)',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New label of the campaign',
			},
			{
				displayName: 'Phone Numbers',
				name: 'phoneNumbers',
				type: 'string',
				default: '',
				placeholder: '+254712345678, +254722000111',
				description:
					"Replaces the campaign's manual numbers: separated by commas or new lines, or an expression giving an array. Empty removes them.",
			},
			{
				displayName: 'Remove Schedule',
				name: 'removeSchedule',
				type: 'boolean',
				default: false,
				description: 'Whether to clear the scheduled time, which turns a SCHEDULED campaign back into a DRAFT',
			},
			{
				...scheduledAtOption,
				description:
					"New time at which the service sends the campaign, in the workflow's timezone; must be in the future. A DRAFT becomes SCHEDULED.",
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		description: 'How the numbers of "Phone Numbers" are read and checked',
		options: [defaultCountryOption, numberCheckOption],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['update'] } }, properties);

/** The PATCH body: only the fields that were set (README: name, message, senderId, manualNumbers, contactGroupIds, scheduledAt). */
function patchBody(ctx: IExecuteFunctions, i: number): IDataObject {
	const node = ctx.getNode();
	const fields = ctx.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	placeholdersKept(ctx, { 'updateFields.message': 'Message' })(i);
	if (fields.name !== undefined) body.name = checkName(ctx.getNode(), fields.name, i);
	if (fields.message !== undefined) body.message = checkMessage(ctx.getNode(), fields.message, i);
	const senderId = readSenderId(ctx, i);
	if (senderId !== '') body.senderId = checkSenderId(ctx.getNode(), senderId, i);
	if (fields.phoneNumbers !== undefined) {
		const numbers = normalizeNumbers(ctx.getNode(), fields.phoneNumbers, readNumberOptions(ctx, i), i);
		body.manualNumbers = [...new Set(numbers)];
	}
	if (fields.contactGroupIds !== undefined) {
		body.contactGroupIds = [...new Set(contactGroupIdsOf(ctx.getNode(), fields.contactGroupIds, i))];
	}
	const scheduledAt = futureTime(ctx, fields.scheduledAt, i);
	checkCampaignUpdate(node, i, body, fields.removeSchedule === true, scheduledAt);
	if (fields.removeSchedule === true) body.scheduledAt = null;
	else if (scheduledAt) body.scheduledAt = scheduledAt;
	checkSomethingToUpdate(node, i, body);
	return body;
}

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const id = readCampaignId(this, i);
	const body = patchBody(this, i);
	const campaign: IDataObject = await campaignRequest(this, id, 'update', i, async () =>
		await updateCampaign(this, id, body, i),
	);
	return { ...campaign, ...messagePreview(campaign.message, campaign.totalRecipients) };
}
