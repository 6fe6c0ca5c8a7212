import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemFailure } from '../../sending/outcomes';
import { wrapError } from '../../transport/errors';
import { defaultCountryOption, numberCheckOption, scheduledAtOption } from '../common.descriptions';
import { doNotSendField, dryRunOption, idempotencyKeyOption, maxCreditsOption, rememberKeyOption, sendingHoursOption } from '../policyOptions';
import { balanceCheckField } from './campaignCredits';
import { apiKeyUseNotice, senderIdFields, senderIdPickerAlwaysOn, useApiKeyField } from './campaignFields';
import { itemNumbers, numbersOfAllItems, prepareCampaign, type PreparedCampaign, type RecipientsSource } from './createBody';
import { createCampaigns, type CampaignToCreate } from './createRequests';
import { changedInV2, onlyV1, onlyV2 } from '../versions';

const SCHEDULED_AT_DESCRIPTION =
	"When the service sends the campaign, in the workflow's timezone; must be in the future. Without it the campaign is created as a DRAFT, to send later with Send Now.";

/** One send time for every recipient: judged in each of their zones; drafts (no Scheduled Time) are not judged. */
const campaignSendingHours: INodeProperties = {
	...sendingHoursOption(true),
	description:
		"A scheduled campaign goes out only when its time is inside these hours in every recipient's local time (told by each number's country; contact groups: Time Zone, else the workflow's). A draft is not judged.",
	hint: 'Outside them the campaign is scheduled for the first time that suits every recipient, not created (Skip), or kept as asked',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. March promotion',
		description: 'Label of the campaign, for your reference (recipients do not see it)',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description:
			'Sent to every recipient, up to 1600 characters. A segment holds 160 GSM-7 characters, or 70 when the text has emoji or other Unicode; each segment costs one credit per recipient.',
		hint: 'The output shows the encoding, segments and the estimated credits of the campaign',
	},
	...onlyV1(useApiKeyField),
	...onlyV2(senderIdPickerAlwaysOn, apiKeyUseNotice),
	...senderIdFields('An approved sender ID of the account (required for campaigns), e.g. ACMEKE', true),
	...changedInV2(
		{
			displayName: 'Recipients',
			name: 'recipientsSource',
			type: 'options',
			noDataExpression: true,
			default: 'list',
			description: 'Where the phone numbers come from. Contact groups can be added in every case.',
			options: [
				{
					name: 'Contact Groups Only (One Campaign per Input Item)',
					value: 'none',
					description: 'Each input item creates one campaign for the contact groups below',
				},
				{
					name: 'List of Numbers in Each Item (One Campaign per Input Item)',
					value: 'list',
					description: 'Each input item creates one campaign; "Phone Numbers" holds its recipients',
				},
				{
					name: 'One Number per Input Item (One Campaign for All Items)',
					value: 'items',
					description:
						'E.g. one row of a sheet per recipient: all input items are collected into a single campaign; the other fields are read from the first item.',
				},
			],
		},
		// One campaign for all items: 100 rows make one campaign of 100 recipients, not 100 campaigns.
		{ default: 'items' },
	),
	...changedInV2(
		{
			displayName: 'Phone Numbers',
			name: 'phoneNumbers',
			type: 'string',
			default: '',
			placeholder: '+254712345678, +254722000111',
			description:
				'Recipients separated by commas or new lines, or an expression giving an array of numbers. E.164, or national numbers with Default Country set.',
			displayOptions: { show: { recipientsSource: ['list'] } },
		},
		{ placeholder: 'e.g. +254712345678, +254722000111' },
	),
	...changedInV2(
		{
			displayName: 'Phone Number',
			name: 'phoneNumber',
			type: 'string',
			required: true,
			default: '',
			placeholder: '={{ $json.phone }}',
			description: "This item's recipient, in E.164 format or national format with Default Country set",
			displayOptions: { show: { recipientsSource: ['items'] } },
		},
		{ placeholder: 'e.g. +254712345678 or {{ $json.phone }}' },
	),
	...changedInV2(
		{
			displayName: 'Contact Group IDs',
			name: 'contactGroupIds',
			type: 'string',
			default: '',
			placeholder: '1, 2',
			description:
				"IDs of the account's contact groups whose members also receive the campaign, separated by commas, or an expression giving an array. A campaign needs phone numbers, contact groups or both.",
		},
		{ placeholder: 'e.g. 1, 2' },
	),
	...onlyV2({
		// Shown, not in Options: a scheduled campaign is the main use of a campaign.
		...scheduledAtOption,
		description: SCHEDULED_AT_DESCRIPTION,
	}),
	...onlyV2(doNotSendField),
	{
		...balanceCheckField('the campaign'),
		hint: 'With contact groups, the campaign is first created as a draft to count its recipients, and deleted again if the credits are short',
	},
	...changedInV2(
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [
				defaultCountryOption,
				dryRunOption,
				idempotencyKeyOption,
				maxCreditsOption,
				numberCheckOption,
				rememberKeyOption,
				{ ...scheduledAtOption, description: SCHEDULED_AT_DESCRIPTION },
			],
		},
		{ options: [defaultCountryOption, dryRunOption, idempotencyKeyOption, maxCreditsOption, numberCheckOption, rememberKeyOption, campaignSendingHours] },
	),
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['create'] } }, properties);

/**
 * One item's campaign, checked. With "One Number per Input Item" the single campaign for all
 * items is checked as a whole in `send` (one error names every invalid number), so an item has
 * nothing to check on its own.
 */
export function preparer(this: IExecuteFunctions): (i: number) => PreparedCampaign | null {
	const source = this.getNodeParameter('recipientsSource', 0) as RecipientsSource;
	return (i) => (source === 'items' ? null : prepareCampaign(this, i, itemNumbers(this, source, i)));
}

export async function send(
	this: IExecuteFunctions,
	prepared: Array<PreparedCampaign | null | ItemFailure>,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if ((this.getNodeParameter('recipientsSource', 0) as RecipientsSource) === 'items') return await createFromAllItems(this, items);
	const campaigns = prepared.map((p, i) => (p === null || 'error' in p ? p : { itemIndex: i, prepared: p }));
	const outcomes = await createCampaigns(this, campaigns.filter((c): c is CampaignToCreate => c !== null && !('error' in c)));
	return campaigns.map((c, i): INodeExecutionData => {
		const outcome = c === null ? undefined : 'error' in c ? c : outcomes.get(c);
		if (outcome?.ok) return { json: outcome.json, pairedItem: { item: i } };
		const error = outcome?.error;
		return { json: { error: error?.message, description: error?.description ?? undefined }, pairedItem: { item: i } };
	});
}

/** "One Number per Input Item": one campaign, so one output item paired to every input item. */
async function createFromAllItems(ctx: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const pairedItem = items.map((_, item) => ({ item }));
	try {
		const campaign = { itemIndex: 0, prepared: prepareCampaign(ctx, 0, numbersOfAllItems(ctx, items)) };
		const outcome = (await createCampaigns(ctx, [campaign])).get(campaign)!;
		if (!outcome.ok) throw outcome.error;
		return [{ json: outcome.json, pairedItem }];
	} catch (error) {
		const wrapped = wrapError(ctx, error, 0);
		if (!ctx.continueOnFail()) throw wrapped;
		return [{ json: { error: wrapped.message, description: wrapped.description ?? undefined }, pairedItem }];
	}
}
