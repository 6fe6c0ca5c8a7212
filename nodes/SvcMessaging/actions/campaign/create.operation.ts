import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { mapItems, wrapError } from '../../helpers/items';
import { perItemParameter } from '../../helpers/parameters';
import { normalizePhoneNumber, type NumberCheck } from '../../helpers/phone';
import { analyzeMessage } from '../../helpers/segments';
import { messageIdentities, openSendLedger, type SendLedger } from '../../helpers/sendLedger';
import { failItem } from '../../helpers/validation';
import { mayHaveBeenProcessed } from '../../transport/errors';
import { apiRequest } from '../../transport/request';
import { SERVICE } from '../../transport/service';
import { defaultCountryOption, numberCheckOption, scheduledAtOption } from '../common.descriptions';
import { futureTime } from '../sms/send.operation';
import {
	balanceCheckField,
	checkCampaignBalance,
	checkMessage,
	checkName,
	checkSenderId,
	contactGroupIdsOf,
	messagePreview,
	normalizeNumbers,
	readSenderId,
	senderIdFields,
	useApiKeyField,
	type NumberOptions,
} from './shared';

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
	useApiKeyField,
	...senderIdFields('An approved sender ID of the account (required for campaigns), e.g. ACMEKE', true),
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
	{
		displayName: 'Contact Group IDs',
		name: 'contactGroupIds',
		type: 'string',
		default: '',
		placeholder: '1, 2',
		description:
			"IDs of the account's contact groups whose members also receive the campaign, separated by commas, or an expression giving an array. A campaign needs phone numbers, contact groups or both.",
	},
	{
		...balanceCheckField('the campaign'),
		hint: 'With contact groups, the campaign is first created as a draft to count its recipients, and deleted again if the credits are short',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			defaultCountryOption,
			numberCheckOption,
			{
				...scheduledAtOption,
				description:
					"When the service sends the campaign, in the workflow's timezone; must be in the future. Without it the campaign is created as a DRAFT, to send later with Send Now.",
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['campaign'], operation: ['create'] } }, properties);

interface PreparedCampaign {
	body: IDataObject;
	creditsPerRecipient: number;
	/** distinct manual numbers; contact group members are counted by the service */
	manualCount: number;
}

/** The campaign-level fields of item `i` (name, message, sender ID, groups, schedule), checked. */
function prepare(ctx: IExecuteFunctions, i: number, manualNumbers: string[]): PreparedCampaign {
	const node = ctx.getNode();
	const name = checkName(ctx, ctx.getNodeParameter('name', i), i);
	const message = checkMessage(ctx, ctx.getNodeParameter('message', i), i);
	const senderId = readSenderId(ctx, i);
	if (senderId === '') failItem(node, i, '"Sender ID" must not be empty: campaigns need an approved sender ID');
	checkSenderId(ctx, senderId, i);
	const contactGroupIds = [...new Set(contactGroupIdsOf(ctx, ctx.getNodeParameter('contactGroupIds', i, ''), i))];
	if (manualNumbers.length === 0 && contactGroupIds.length === 0) {
		const source = ctx.getNodeParameter('recipientsSource', 0) as string;
		failItem(
			node,
			i,
			source === 'none'
				? '"Contact Group IDs" must not be empty: the campaign has no recipients'
				: 'the campaign has no recipients: fill in "Phone Numbers" or "Contact Group IDs" (at least one of the two)',
		);
	}
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const scheduledAt = futureTime(ctx, options.scheduledAt, i);
	const numbers = [...new Set(manualNumbers)];
	const body: IDataObject = { name, message, senderId };
	if (numbers.length) body.manualNumbers = numbers;
	if (contactGroupIds.length) body.contactGroupIds = contactGroupIds;
	if (scheduledAt) body.scheduledAt = scheduledAt;
	return { body, creditsPerRecipient: analyzeMessage(message).credits, manualCount: numbers.length };
}

function numberOptions(ctx: IExecuteFunctions, i: number): NumberOptions {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	return {
		defaultCountry: (options.defaultCountry as string) || undefined,
		numberCheck: (options.numberCheck as NumberCheck) ?? 'mobile',
	};
}

async function post(ctx: IExecuteFunctions, body: IDataObject, i: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'POST', path: SERVICE.paths.campaigns, auth: 'account', body, itemIndex: i })) as IDataObject;
}

/**
 * With "Check Balance Before Sending": numbers alone are counted before anything is created. With
 * contact groups only the service knows the recipient count, so the campaign is created as a DRAFT
 * first (a draft sends and charges nothing), checked against its totalRecipients, then scheduled
 * — or deleted again when the credits are short.
 */
async function createChecked(ctx: IExecuteFunctions, p: PreparedCampaign, i: number): Promise<IDataObject> {
	if (!p.body.contactGroupIds) {
		await checkCampaignBalance(ctx, p.creditsPerRecipient, p.manualCount, i, 'The campaign was not created and nothing was sent.');
		return await post(ctx, p.body, i);
	}
	const { scheduledAt, ...draftBody } = p.body;
	const draft = await post(ctx, draftBody, i);
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
			await apiRequest.call(ctx, { method: 'DELETE', path: SERVICE.paths.campaign(id), auth: 'account', itemIndex: i });
		} catch {
			if (error instanceof NodeOperationError || error instanceof NodeApiError) {
				error.description = `${error.description ?? ''} Deleting the draft campaign ${id} failed as well: delete it yourself.`.trim();
			}
		}
		throw wrapError(ctx, error, i);
	}
	if (!scheduledAt) return draft;
	try {
		return (await apiRequest.call(ctx, {
			method: 'PATCH',
			path: SERVICE.paths.campaign(id),
			auth: 'account',
			body: { scheduledAt },
			itemIndex: i,
		})) as IDataObject;
	} catch (error) {
		const wrapped = wrapError(ctx, error, i);
		wrapped.description = `The campaign was created as DRAFT (ID ${id}) but could not be scheduled; nothing was sent. ${wrapped.description ?? ''}`.trim();
		throw wrapped;
	}
}

/** Creates one campaign; a retried node run returns the campaign it already created for the same payload. */
async function create(ctx: IExecuteFunctions, ledger: SendLedger, p: PreparedCampaign, i: number): Promise<IDataObject> {
	const [identity] = messageIdentities([`${i}\u0000${JSON.stringify(p.body)}`]);
	const [known] = ledger.consult ? await ledger.lookup([identity]) : [];
	if (known?.outcome === 'accepted') return known.json;
	if (known?.outcome === 'unknown') {
		throw new NodeOperationError(ctx.getNode(), known.message, { itemIndex: i, description: known.description });
	}
	let campaign: IDataObject;
	try {
		campaign = ctx.getNodeParameter('balanceCheck', i, false) ? await createChecked(ctx, p, i) : await post(ctx, p.body, i);
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

/** "One Number per Input Item": every item's number, checked, in one campaign. */
async function createFromAllItems(ctx: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const pairedItem = items.map((_, item) => ({ item }));
	try {
		const options = numberOptions(ctx, 0);
		const phone = perItemParameter<unknown>(ctx, 'phoneNumber', '');
		const numbers: string[] = [];
		const invalid: Array<{ item: number; rule: string }> = [];
		for (let i = 0; i < items.length; i++) {
			const result = normalizePhoneNumber(phone(i), options.defaultCountry, options.numberCheck);
			if (result.ok) numbers.push(result.e164);
			else invalid.push({ item: i, rule: result.rule });
		}
		if (invalid.length) {
			const listed = invalid.slice(0, 20).map((p) => p.item).join(', ') + (invalid.length > 20 ? ', …' : '');
			throw new NodeOperationError(ctx.getNode(), `Item ${invalid[0].item}: "Phone Number" ${invalid[0].rule}`, {
				itemIndex: invalid[0].item,
				description:
					`${invalid.length} of ${items.length} input item(s) have an invalid "Phone Number" (items ${listed}). ` +
					'The campaign was not created: fix or filter out these items first.',
			});
		}
		const ledger = await openSendLedger(ctx);
		const json = await create(ctx, ledger, prepare(ctx, 0, numbers), 0);
		await ledger.finish();
		return [{ json, pairedItem }];
	} catch (error) {
		const wrapped = wrapError(ctx, error, 0);
		if (!ctx.continueOnFail()) throw wrapped;
		return [{ json: { error: wrapped.message, description: wrapped.description ?? undefined }, pairedItem }];
	}
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const source = this.getNodeParameter('recipientsSource', 0) as 'list' | 'items' | 'none';
	if (source === 'items') return await createFromAllItems(this, items);
	// Campaigns use the account login: their ledger stays in this process.
	const ledger = await openSendLedger(this);
	const output = await mapItems(this, items, async (i) => {
		const numbers =
			source === 'list' ? normalizeNumbers(this, this.getNodeParameter('phoneNumbers', i, ''), numberOptions(this, i), i) : [];
		return await create(this, ledger, prepare(this, i, numbers), i);
	});
	await ledger.finish();
	return output;
}
