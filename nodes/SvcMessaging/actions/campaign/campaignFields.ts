import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkField, failItem } from '../../rules/fields';
import { normalizePhoneNumber, type NumberCheck } from '../../rules/phone';
import { textField } from '../../rules/schemas';
import { senderIdSchema } from '../../rules/smsFields';
import { INPUT_LIMITS, SMS_LIMITS } from '../../transport/service';
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

const MESSAGE = textField({ visible: true, max: SMS_LIMITS.maxMessageCharacters });
const NAME = textField({ visible: true });

export function checkMessage(ctx: IExecuteFunctions, message: unknown, i: number): string {
	return checkField(ctx.getNode(), MESSAGE, message, i, 'Message');
}

export function checkName(ctx: IExecuteFunctions, name: unknown, i: number): string {
	return checkField(ctx.getNode(), NAME, name, i, 'Name');
}

/** The campaign ID of the resource locator, checked to be a whole number. */
export function readCampaignId(ctx: IExecuteFunctions, i: number): string {
	const raw = ctx.getNodeParameter('campaignId', i, '', { extractValue: true }) as unknown;
	const id = raw === undefined || raw === null ? '' : typeof raw === 'object' ? '[an object]' : String(raw).trim();
	if (id === '') failItem(ctx.getNode(), i, '"Campaign" must not be empty: pick one from the list or enter its ID');
	if (!/^\d+$/.test(id) || Number(id) < 1 || id.length > INPUT_LIMITS.maxCampaignIdDigits) {
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

/** Default Country and Number Check of item `i`'s "Options". */
export function readNumberOptions(ctx: IExecuteFunctions, i: number): NumberOptions {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	return {
		defaultCountry: (options.defaultCountry as string) || undefined,
		numberCheck: (options.numberCheck as NumberCheck) ?? 'mobile',
	};
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
