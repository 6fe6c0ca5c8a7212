import type { INodeProperties } from 'n8n-workflow';

import { SUPPORTED_COUNTRIES } from '../rules/phone';

/** `automatic`: the list offers "Automatic (by Recipient's Country)" first (SMS Send, Send and Wait, Send Bulk). */
export const senderIdLocator = (description: string, required = false, automatic = false): INodeProperties => ({
	displayName: 'Sender ID',
	name: 'senderId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required,
	description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an approved sender ID...',
			typeOptions: { searchListMethod: automatic ? 'searchSenderIdsOrAutomatic' : 'searchSenderIds', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. ACMEKE',
			// A hint, not a `validation` regex: n8n checks those in a vm with a 250 ms timeout at the start of
			// every execution, which can fail it on a busy machine; rules/ checks the sender ID before any request.
			hint: '1–11 capital letters A–Z or digits 0–9, no spaces',
		},
	],
});

export const defaultCountryOption: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'options',
	default: '',
	description:
		'Country of phone numbers written without a country code (e.g. 0712 345678). Numbers starting with + are read as they are.',
	options: [
		{ name: 'None (Numbers Must Start With +)', value: '' },
		...Object.entries(SUPPORTED_COUNTRIES).map(([code, name]) => ({ name, value: code })),
	],
};

export const numberCheckOption: INodeProperties = {
	displayName: 'Phone Number Check',
	name: 'numberCheck',
	type: 'options',
	default: 'mobile',
	description: 'How strictly numbers are checked before anything is sent',
	options: [
		{
			name: 'Valid Mobile Number of a Supported Country',
			value: 'mobile',
			description: 'Catches typos and landlines before they cost a request',
		},
		{
			name: 'E.164 Format Only',
			value: 'format',
			description: 'Let the service judge the number (for new number ranges)',
		},
	],
};

export const scheduledAtOption: INodeProperties = {
	displayName: 'Scheduled Time',
	name: 'scheduledAt',
	type: 'dateTime',
	default: '',
	description: "When the service should send, in the workflow's timezone. Must be in the future.",
};

export const checkBalanceField = (what: string): INodeProperties => ({
	displayName: 'Check Balance Before Sending',
	name: 'checkBalance',
	type: 'boolean',
	default: false,
	description: `Whether to compare the credits this ${what} needs with the account balance first, and stop before sending anything when they are short. Needs the SVC Messaging Account API credential (email and password) as well.`,
});

/** n8n's usual pair for lists. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
];

/** Send, Send Bulk and Chat Message → Send: what a retry does with a message of unknown fate. */
export const resendUnknownOutcomeOption: INodeProperties = {
	displayName: 'Resend Messages With Unknown Outcome',
	name: 'resendUnknownOutcome',
	type: 'boolean',
	default: false,
	description:
		'Whether a retry sends again the messages whose earlier try may have reached the service (a timeout, a dropped connection or a server error). Off: they are reported as errors and not sent, so nobody gets a message twice.',
};

/** SMS Send, Send and Wait and Send Bulk, both node versions (off: a saved workflow sends as before): typographic look-alikes (rules/gsm7.ts) replaced before sending. */
export const replaceLookalikesOption: INodeProperties = {
	displayName: 'Replace Look-Alike Characters',
	name: 'replaceLookalikes',
	type: 'boolean',
	default: false,
	description:
		'Whether to replace curly quotes, en and em dashes, the ellipsis and no-break spaces with their plain GSM-7 equivalents before sending. One such character makes the whole message Unicode: 70 instead of 160 characters per segment. Links are left as they are, and nothing is replaced when the message would stay Unicode anyway (e.g. it has an emoji). The output lists what was replaced.',
};
