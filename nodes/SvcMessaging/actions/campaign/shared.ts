import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { assertBalance } from '../../helpers/balance';
import { normalizePhoneNumber, type NumberCheck } from '../../helpers/phone';
import { analyzeMessage } from '../../helpers/segments';
import { failItem } from '../../helpers/validation';
import { serviceErrorCode } from '../../transport/errors';
import { apiRequest } from '../../transport/request';
import { SERVICE, SMS_LIMITS } from '../../transport/service';
import { senderIdLocator } from '../common.descriptions';
import { senderIdSchema } from '../sms/send.operation';
import { wrapError } from '../../helpers/items';

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'COMPLETED' | 'FAILED' | 'PAUSED' | 'CANCELLED';

/** What each operation may do, per the README's Assumptions table (the service answers 409 otherwise). */
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

export const campaignIdLocator = (description: string): INodeProperties => ({
	displayName: 'Campaign',
	name: 'campaignId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a campaign...',
			typeOptions: { searchListMethod: 'searchCampaigns', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 42',
			validation: [
				{
					type: 'regex',
					properties: { regex: '^[0-9]+$', errorMessage: 'A campaign ID is a whole number, e.g. 42' },
				},
			],
		},
	],
});

/** The sender ID picker switch: the listing uses the API key, so it is optional here. */
export const useApiKeyField: INodeProperties = {
	displayName: 'Pick Sender ID From Account List',
	name: 'useApiKey',
	type: 'boolean',
	default: false,
	description:
		"Whether to choose the sender ID from the account's approved sender IDs. The list is read with the API key, so this needs the SVC Messaging API credential as well; otherwise type the sender ID.",
};

/**
 * Sender ID as a picker (From List / By ID) when "Pick Sender ID From Account List" is on, else a
 * text field. Two names, not one name with two types: n8n keeps a value across a switch between
 * same-named fields, which would leave a picker object in a text field.
 */
export function senderIdFields(description: string, required: boolean): INodeProperties[] {
	return [
		{ ...senderIdLocator(description, required), displayOptions: { show: { useApiKey: [true] } } },
		{
			displayName: 'Sender ID',
			name: 'senderIdText',
			type: 'string',
			default: '',
			required,
			placeholder: 'e.g. ACMEKE',
			description,
			displayOptions: { show: { useApiKey: [false] } },
		},
	];
}

export const balanceCheckField = (what: string): INodeProperties => ({
	displayName: 'Check Balance Before Sending',
	name: 'balanceCheck',
	type: 'boolean',
	default: false,
	description: `Whether to compare the credits ${what} needs (segments of the message × recipients) with the account balance first, and stop with an INSUFFICIENT_CREDITS error before anything is sent when they are short`,
});

/** The sender ID of the picker or of the text field, whichever is shown; '' when empty. */
export function readSenderId(ctx: IExecuteFunctions, i: number): string {
	const raw = ctx.getNodeParameter('useApiKey', i, false)
		? (ctx.getNodeParameter('senderId', i, '', { extractValue: true }) as unknown)
		: (ctx.getNodeParameter('senderIdText', i, '') as unknown);
	const value = raw && typeof raw === 'object' ? (raw as IDataObject).value : raw;
	return value === undefined || value === null ? '' : String(value).trim();
}

export function checkSenderId(ctx: IExecuteFunctions, senderId: string, i: number): string {
	const result = senderIdSchema.safeParse(senderId);
	if (!result.success) failItem(ctx.getNode(), i, `"Sender ID" ${result.error.issues[0].message} (got "${senderId}")`);
	return senderId;
}

export function checkMessage(ctx: IExecuteFunctions, message: unknown, i: number): string {
	if (typeof message !== 'string' || message === '') failItem(ctx.getNode(), i, '"Message" must not be empty');
	if ([...message].length > SMS_LIMITS.maxMessageCharacters) {
		failItem(ctx.getNode(), i, `"Message" must be at most ${SMS_LIMITS.maxMessageCharacters} characters (has ${[...message].length})`);
	}
	return message;
}

export function checkName(ctx: IExecuteFunctions, name: unknown, i: number): string {
	if (typeof name !== 'string' && typeof name !== 'number') failItem(ctx.getNode(), i, '"Name" must be text');
	const text = String(name);
	if (text.trim() === '') failItem(ctx.getNode(), i, '"Name" must not be empty');
	return text;
}

/** The campaign ID of the resource locator, checked to be a whole number. */
export function readCampaignId(ctx: IExecuteFunctions, i: number): string {
	const raw = ctx.getNodeParameter('campaignId', i, '', { extractValue: true }) as unknown;
	const id = raw === undefined || raw === null ? '' : String(raw).trim();
	if (id === '') failItem(ctx.getNode(), i, '"Campaign" must not be empty: pick one from the list or enter its ID');
	if (!/^\d+$/.test(id) || Number(id) < 1) {
		failItem(ctx.getNode(), i, `"Campaign" must be a campaign ID (a whole number greater than 0), got "${id.slice(0, 40)}"`);
	}
	return id;
}

/** A list parameter: an array (from an expression), a JSON array, or text separated by commas, semicolons or new lines. */
export function listOf(value: unknown): unknown[] {
	if (value === undefined || value === null || value === '') return [];
	if (Array.isArray(value)) return value;
	if (typeof value === 'number') return [value];
	if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('[')) {
			try {
				const parsed = JSON.parse(text) as unknown;
				if (Array.isArray(parsed)) return parsed;
			} catch {
				// not JSON: read as separated text
			}
		}
		return text
			.split(/[\n,;]+/)
			.map((part) => part.trim())
			.filter((part) => part !== '');
	}
	return [value];
}

export interface NumberOptions {
	defaultCountry?: string;
	numberCheck?: NumberCheck;
}

/** Normalises a list of numbers to E.164 (as SMS Send does); the error names the entry. */
export function normalizeNumbers(
	ctx: IExecuteFunctions,
	value: unknown,
	options: NumberOptions,
	i: number,
	label = 'Phone Numbers',
): string[] {
	return listOf(value).map((entry, position) => {
		const result = normalizePhoneNumber(entry, options.defaultCountry || undefined, options.numberCheck ?? 'mobile');
		if (!result.ok) {
			const shown = typeof entry === 'string' || typeof entry === 'number' ? ` ("${String(entry).slice(0, 30)}")` : '';
			failItem(ctx.getNode(), i, `"${label}" entry ${position + 1}${shown} ${result.rule}`);
		}
		return result.e164;
	});
}

export function contactGroupIdsOf(ctx: IExecuteFunctions, value: unknown, i: number): number[] {
	return listOf(value).map((entry, position) => {
		const text = typeof entry === 'string' || typeof entry === 'number' ? String(entry).trim() : '';
		if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
			failItem(
				ctx.getNode(),
				i,
				`"Contact Group IDs" entry ${position + 1} must be a whole number greater than 0 (got ${JSON.stringify(entry)?.slice(0, 30)})`,
			);
		}
		return Number(text);
	});
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

export async function getCampaign(ctx: IExecuteFunctions, id: string, itemIndex: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'GET', path: SERVICE.paths.campaign(id), auth: 'account', itemIndex })) as IDataObject;
}

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
	const message =
		`Cannot ${ACTION_NAMES[action]} campaign ${named}: it is ${status ?? 'in a status that does not allow this'}. ` +
		`${ACTION_LABELS[action]} is allowed only for ${allowed.join(', ')} campaigns`;
	const description = [status ? STATUS_ADVICE[status] : undefined, 'Nothing was changed.'].filter(Boolean).join(' ');
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
		await assertBalance(ctx, creditsPerRecipient * recipients);
	} catch (error) {
		if (error instanceof NodeOperationError && error.message.startsWith('INSUFFICIENT_CREDITS')) {
			error.context.itemIndex = itemIndex;
			error.errorResponse = { code: 'INSUFFICIENT_CREDITS' };
			error.description =
				`${outcome} Estimate: ${creditsPerRecipient} credit(s) per recipient (one per SMS segment of the message) × ` +
				`${recipients} recipient(s). Top up credits in the dashboard, or turn off "Check Balance Before Sending".`;
		}
		throw wrapError(ctx, error, itemIndex);
	}
}
