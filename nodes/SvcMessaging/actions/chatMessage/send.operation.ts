import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { sendChatMessage } from '../../api/chat';
import { CHAT_TEXT_LIMITS } from '../../rules/chatMedia';
import type { ItemFailure } from '../../sending/outcomes';
import { postEach, type PreparedPost } from '../../sending/postEach';
import { getServiceCredentials, isSandboxKey } from '../../transport/credentials';
import { templateLocator, languageDescription } from '../chatTemplate/descriptions';
import { defaultCountryOption, numberCheckOption, resendUnknownOutcomeOption } from '../common.descriptions';
import { doNotSendField, dryRunOption, idempotencyKeyOption, rememberKeyOption, maxCreditsOption, sendingHoursOption } from '../policyOptions';
import { changedInV2, isV2 } from '../versions';
import { acceptedChatMessage, MEDIA_TYPES, newSendCache, prepareChatMessage, pricedChatMessage } from './messageBody';
import { SERVICE } from '../../transport/service';

const MESSAGE_TYPE_OPTIONS_V2 = [
	{ name: 'Document', value: 'document', description: 'PDF, DOC(X), XLS(X) or PPT(X), up to 100 MB' },
	{ name: 'Image', value: 'image', description: 'JPEG, PNG or WEBP, up to 5 MB' },
	{ name: 'Text', value: 'text' },
	{ name: 'Video', value: 'video', description: 'MP4 or 3GPP, up to 16 MB' },
];

export const phoneNumberField: INodeProperties = {
	displayName: 'Phone Number',
	name: 'phoneNumber',
	type: 'string',
	required: true,
	default: '',
	placeholder: '+254712345678',
	description:
		'Recipient in E.164 format (or a national number when Default Country is set). The recipient must have opted in to your chat messages.',
};

export const recipientTypeField: INodeProperties = {
	displayName: 'Recipient Type',
	name: 'recipientType',
	type: 'options',
	default: 'individual',
	description: "Whether the phone number is one person's chat (Individual) or a chat group's (Group), as the service's recipientType",
	options: [
		{ name: 'Individual', value: 'individual' },
		{ name: 'Group', value: 'group' },
	],
};

/** Chat recipients may be in any country, so only the format is checked by default. */
export const chatNumberCheckOption: INodeProperties = {
	...numberCheckOption,
	default: 'format',
	description: 'How strictly numbers are checked before anything is sent (chat recipients may be in any country)',
	options: [
		{ name: 'E.164 Format Only', value: 'format', description: 'Any country' },
		{
			name: 'Valid Mobile Number of a Supported Country',
			value: 'mobile',
			description: 'Kenya, Nigeria, Uganda, Tanzania, Rwanda or Ghana only',
		},
	],
};

const properties: INodeProperties[] = [
	...changedInV2(phoneNumberField, { placeholder: 'e.g. +254712345678' }),
	recipientTypeField,
	...changedInV2(
		{
			displayName: 'Message Type',
			name: 'messageType',
			type: 'options',
			noDataExpression: true,
			default: 'text',
			options: [
				{ name: 'Document', value: 'document', description: 'PDF, DOC(X), XLS(X) or PPT(X), up to 100 MB' },
				{ name: 'Image', value: 'image', description: 'JPEG, PNG or WEBP, up to 5 MB' },
				{
					name: 'Template',
					value: 'template',
					description: 'An approved template: the only way to start a conversation the recipient has not',
				},
				{ name: 'Text', value: 'text' },
				{ name: 'Video', value: 'video', description: 'MP4 or 3GPP, up to 16 MB' },
			],
		},
		// Version 2: templates are their own operation, Send Template.
		{ options: MESSAGE_TYPE_OPTIONS_V2 },
	),
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		displayOptions: { show: { messageType: ['text'] } },
	},
	{
		displayName: 'Media Link',
		name: 'mediaLink',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/receipt.pdf',
		displayOptions: { show: { messageType: MEDIA_TYPES } },
		description:
			'Public HTTPS link to the file; its extension must match the type (image: .jpg .jpeg .png .webp; document: .pdf .doc .docx .xls .xlsx .ppt .pptx; video: .mp4 .3gp)',
	},
	{
		displayName: 'Caption',
		name: 'caption',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		displayOptions: { show: { messageType: MEDIA_TYPES } },
		description: `Optional, up to ${CHAT_TEXT_LIMITS.captionMaxCharacters} characters`,
	},
	{
		displayName: 'File Name',
		name: 'filename',
		type: 'string',
		default: '',
		placeholder: 'receipt-1042.pdf',
		displayOptions: { show: { messageType: ['document'] } },
		description: `Name the recipient sees, up to ${CHAT_TEXT_LIMITS.filenameMaxCharacters} characters`,
	},
	{
		...templateLocator('searchApprovedChatTemplates', 'An approved template of the account'),
		displayOptions: { show: { messageType: ['template'] } },
	},
	{
		displayName: 'Template Language',
		name: 'templateLanguage',
		type: 'string',
		default: '',
		placeholder: 'en',
		displayOptions: { show: { messageType: ['template'] } },
		description: `${languageDescription}. Leave empty to use the template's language; when set, it must match the template's.`,
	},
	{
		displayName: 'Template Variables',
		name: 'templateVariables',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		displayOptions: { show: { messageType: ['template'] } },
		typeOptions: {
			loadOptionsDependsOn: ['template.value'],
			resourceMapper: {
				resourceMapperMethod: 'getTemplateVariables',
				mode: 'add',
				fieldWords: { singular: 'variable', plural: 'variables' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Allow Private Media Hosts',
				name: 'allowPrivateMediaHosts',
				type: 'boolean',
				default: false,
				description:
					'Whether to allow media links to private, loopback and link-local hosts (e.g. 10.0.0.5, 127.0.0.1, localhost, 169.254.169.254). Off, such links are refused before anything is requested or sent, and "Verify Media Link" also refuses a host name that resolves to one.',
			},
			defaultCountryOption,
			dryRunOption,
	idempotencyKeyOption,
	rememberKeyOption,
			idempotencyKeyOption,
			maxCreditsOption,
			chatNumberCheckOption,
			rememberKeyOption,
			resendUnknownOutcomeOption,
			sendingHoursOption(false),
			{
				displayName: 'Verify Media Link',
				name: 'verifyMediaLink',
				type: 'boolean',
				default: false,
				description:
					'Whether to check the media link with a HEAD request before sending: it must answer, with an allowed content type and within the size limit (image 5 MB, document 100 MB, video 16 MB)',
			},
		],
	},
	doNotSendField,
];

export const description = updateDisplayOptions({ show: { resource: ['chatMessage'], operation: ['send'] } }, properties);

/** Template, Template Language and Template Variables, without their Message Type condition (for Send Template). */
export const templateFields: INodeProperties[] = properties
	.filter((p) => ['template', 'templateLanguage', 'templateVariables'].includes(p.name))
	.map((property) => {
		const field = { ...property };
		delete field.displayOptions; // shown for the template type here; Send Template shows them always
		return field;
	});

/** The run's reader of one item's chat message, checked; templates and media links are looked up once per run. */
export function preparer(this: IExecuteFunctions): (i: number) => Promise<PreparedPost> {
	const cache = newSendCache();
	return async (i) => await prepareChatMessage(this, cache, i);
}

export async function send(this: IExecuteFunctions, prepared: Array<PreparedPost | ItemFailure>): Promise<INodeExecutionData[]> {
	const sandbox = isSandboxKey(await getServiceCredentials.call(this, 'apiKey'));
	const v2 = isV2(this);
	return await postEach(this, prepared, {
		post: sendChatMessage,
		noun: 'chat message',
		creditsOf: () => SERVICE.chatCreditsPerMessage,
		recipientOf: ({ body }) => body.phoneNumber as string,
		scheduling: 'none',
		price: pricedChatMessage,
		accepted: (message, data) => (sandbox ? { ...acceptedChatMessage(message, data, v2), sandbox: true } : acceptedChatMessage(message, data, v2)),
		identify: (message, i) =>
			message ? { phoneNumber: message.body.phoneNumber, type: message.body.type } : { phoneNumber: this.getNodeParameter('phoneNumber', i, '') },
	});
}
