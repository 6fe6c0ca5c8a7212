import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkCampaignId, type NumberOptions } from '../../rules/campaignFields';
import type { NumberCheck } from '../../rules/phone';
import { senderIdLocator } from '../common.descriptions';

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
			// A hint, not a `validation` regex: n8n checks those in a vm with a 250 ms timeout at the start of
			// every execution, which can fail it on a busy machine; the node checks the ID itself (below).
			hint: 'A campaign ID is a whole number, e.g. 42',
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
 * Version 2: the picker is always there, as on SMS Send (its "By ID" mode takes a typed sender ID);
 * the switch stays, hidden and on, because it is what shows the API key credential.
 */
export const senderIdPickerAlwaysOn: INodeProperties = {
	displayName: 'Use API Key',
	name: 'useApiKey',
	type: 'hidden',
	default: true,
};

/**
 * Version 2's campaign forms ask for both credentials: this says what the API key is for here, next
 * to the field that uses it.
 */
export const apiKeyUseNotice: INodeProperties = {
	displayName:
		'The SVC Messaging API credential only lists the sender IDs below; the campaign itself is created with the SVC Messaging Account API credential',
	name: 'apiKeyUseNotice',
	type: 'notice',
	default: '',
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

/** The sender ID of the picker or of the text field, whichever is shown; '' when empty. */
export function readSenderId(ctx: IExecuteFunctions, i: number): string {
	const raw = ctx.getNodeParameter('useApiKey', i, false)
		? (ctx.getNodeParameter('senderId', i, '', { extractValue: true }) as unknown)
		: (ctx.getNodeParameter('senderIdText', i, '') as unknown);
	const value = raw && typeof raw === 'object' ? (raw as IDataObject).value : raw;
	return value === undefined || value === null ? '' : String(value).trim();
}

/** The campaign ID of the resource locator, checked to be a whole number. */
export function readCampaignId(ctx: IExecuteFunctions, i: number): string {
	return checkCampaignId(ctx.getNode(), ctx.getNodeParameter('campaignId', i, '', { extractValue: true }) as unknown, i);
}

/** Default Country and Number Check of item `i`'s "Options". */
export function readNumberOptions(ctx: IExecuteFunctions, i: number): NumberOptions {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	return {
		defaultCountry: (options.defaultCountry as string) || undefined,
		numberCheck: (options.numberCheck as NumberCheck) ?? 'mobile',
	};
}

