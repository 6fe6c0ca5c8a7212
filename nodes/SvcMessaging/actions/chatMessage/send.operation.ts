import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { CHAT_TEXT_LIMITS, mediaLinkProblem, verifyMediaLink, type MediaKind } from '../../helpers/chatMedia';
import { characterCount, normalizeLanguageCode } from '../../helpers/templateRules';
import { normalizePhoneNumber, type NumberCheck } from '../../helpers/phone';
import { postOnce, prepareAll, type PreparedPost } from '../../helpers/postOnce';
import { failItem } from '../../helpers/validation';
import { fetchTemplate, variableFieldIds } from '../../methods/chatTemplates';
import { serviceErrorCode } from '../../transport/errors';
import { getServiceCredentials } from '../../transport/request';
import { SERVICE } from '../../transport/service';
import { templateLocator, languageDescription } from '../chatTemplate/descriptions';
import { defaultCountryOption, numberCheckOption, resendUnknownOutcomeOption } from '../common.descriptions';
import { wrapError } from '../../helpers/items';

const MEDIA_TYPES: MediaKind[] = ['image', 'document', 'video'];

const properties: INodeProperties[] = [
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+254712345678',
		description:
			'Recipient in E.164 format (or a national number when Default Country is set). The recipient must have opted in to your chat messages.',
	},
	{
		displayName: 'Recipient Type',
		name: 'recipientType',
		type: 'options',
		default: 'individual',
		options: [
			{ name: 'Individual', value: 'individual' },
			{ name: 'Group', value: 'group' },
		],
	},
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
			defaultCountryOption,
			{
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
			},
			{
				displayName: 'Verify Media Link',
				name: 'verifyMediaLink',
				type: 'boolean',
				default: false,
				description:
					'Whether to check the media link with a HEAD request before sending: it must answer, with an allowed content type and within the size limit (image 5 MB, document 100 MB, video 16 MB)',
			},
			resendUnknownOutcomeOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['chatMessage'], operation: ['send'] } }, properties);

function variableLabel(id: string): string {
	const [part, n] = id.split('_');
	return `${part === 'header' ? 'Header' : 'Body'} {{${n}}}`;
}

/** Per execution: templates looked up and media links verified once, however many items use them. */
interface SendCache {
	templates: Map<string, Promise<IDataObject>>;
	verified: Map<string, Promise<string | undefined>>;
}

async function checkMedia(
	ctx: IExecuteFunctions,
	cache: SendCache,
	i: number,
	label: string,
	link: string,
	kind: MediaKind,
	verify: boolean,
): Promise<string> {
	const trimmed = link.trim();
	if (!trimmed) failItem(ctx.getNode(), i, `"${label}" must not be empty`);
	const problem = mediaLinkProblem(trimmed, kind);
	if (problem) failItem(ctx.getNode(), i, `"${label}" ${problem}`);
	if (verify) {
		const key = `${kind} ${trimmed}`;
		if (!cache.verified.has(key)) cache.verified.set(key, verifyMediaLink(ctx, trimmed, kind));
		const verdict = await cache.verified.get(key);
		if (verdict) failItem(ctx.getNode(), i, `"${label}" ${verdict}`);
	}
	return trimmed;
}

async function templateOf(ctx: IExecuteFunctions, cache: SendCache, name: string, i: number): Promise<IDataObject> {
	if (!cache.templates.has(name)) {
		const lookup = fetchTemplate(ctx, name, i);
		lookup.catch(() => {});
		cache.templates.set(name, lookup);
	}
	try {
		return await cache.templates.get(name)!;
	} catch (error) {
		if (serviceErrorCode(error) === 'NOT_FOUND') {
			failItem(ctx.getNode(), i, `Template "${name}" does not exist in this account (names are case-sensitive)`);
		}
		throw wrapError(ctx, error, i);
	}
}

async function templateMessage(ctx: IExecuteFunctions, cache: SendCache, i: number): Promise<IDataObject> {
	const node = ctx.getNode();
	const name = String(ctx.getNodeParameter('template', i, '', { extractValue: true }) ?? '').trim();
	if (!name) failItem(node, i, '"Template" must not be empty: pick an approved template or type its name');
	const template = await templateOf(ctx, cache, name, i);
	if (template.status !== 'APPROVED') {
		const reason = template.rejectedReason ? ` (${String(template.rejectedReason)})` : '';
		failItem(
			node,
			i,
			`Template "${name}" is ${String(template.status ?? 'not approved')}${reason}: only APPROVED templates can be sent`,
			template.status === 'PENDING' ? 'Review takes a while after Create; "Chat Template → Get" shows the status.' : undefined,
		);
	}
	// The message names the language exactly as the template has it.
	const templateLanguage = String(template.language ?? '');
	const requested = String(ctx.getNodeParameter('templateLanguage', i, '') ?? '').trim();
	if (requested) {
		const language = normalizeLanguageCode(requested);
		if (!language) failItem(node, i, `"Template Language" must be a language code such as en, sw or en_US (got "${requested}")`);
		if (language !== (normalizeLanguageCode(templateLanguage) ?? templateLanguage)) {
			failItem(node, i, `"Template Language" is ${language}, but template "${name}" is in ${templateLanguage}`);
		}
	}

	// The values mapped in the resource mapper must be exactly the template's variables.
	const values = (ctx.getNodeParameter('templateVariables.value', i, {}) ?? {}) as IDataObject;
	const ids = variableFieldIds(template.components);
	const expected = [...ids.header, ...ids.body];
	const filled = (id: string) => values[id] !== undefined && values[id] !== null && String(values[id]) !== '';
	const extra = Object.keys(values).filter((id) => filled(id) && !expected.includes(id));
	const missing = expected.filter((id) => !filled(id));
	if (extra.length || missing.length) {
		const given = Object.keys(values).filter(filled).length;
		const reason = extra.length
			? `${extra.map(variableLabel).join(', ')} ${extra.length === 1 ? 'is' : 'are'} not in the template (refresh the field list of "Template Variables")`
			: `${missing.map(variableLabel).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value`;
		failItem(
			node,
			i,
			`Template "${name}" has ${expected.length} variable${expected.length === 1 ? '' : 's'} but ${given} value${given === 1 ? ' was' : 's were'} mapped: ${reason}`,
		);
	}

	const components: IDataObject[] = [];
	if (ids.header.length) {
		components.push({ type: 'header', parameters: ids.header.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	if (ids.body.length) {
		components.push({ type: 'body', parameters: ids.body.map((id) => ({ type: 'text', text: String(values[id]) })) });
	}
	return { name, language: { code: templateLanguage }, components };
}

async function prepare(ctx: IExecuteFunctions, cache: SendCache, i: number): Promise<PreparedPost> {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const phone = normalizePhoneNumber(
		ctx.getNodeParameter('phoneNumber', i),
		(options.defaultCountry as string) || undefined,
		(options.numberCheck as NumberCheck) ?? 'format',
	);
	if (!phone.ok) failItem(node, i, `"Phone Number" ${phone.rule}`);
	const type = ctx.getNodeParameter('messageType', i) as string;
	const recipientType = ctx.getNodeParameter('recipientType', i, 'individual') as string;
	const verify = options.verifyMediaLink === true;
	const body: IDataObject = { phoneNumber: phone.e164, type, recipientType };

	if (type === 'text') {
		const text = ctx.getNodeParameter('text', i, '');
		if (typeof text !== 'string' || text.trim() === '') failItem(node, i, '"Text" must not be empty');
		body.text = { body: text };
	} else if ((MEDIA_TYPES as string[]).includes(type)) {
		const kind = type as MediaKind;
		const link = await checkMedia(ctx, cache, i, 'Media Link', String(ctx.getNodeParameter('mediaLink', i, '')), kind, verify);
		const media: IDataObject = { link };
		const caption = String(ctx.getNodeParameter('caption', i, '') ?? '');
		if (caption !== '') {
			const length = characterCount(caption);
			if (length > CHAT_TEXT_LIMITS.captionMaxCharacters) {
				failItem(node, i, `"Caption" must be at most ${CHAT_TEXT_LIMITS.captionMaxCharacters} characters (it has ${length})`);
			}
			media.caption = caption;
		}
		if (kind === 'document') {
			const filename = String(ctx.getNodeParameter('filename', i, '') ?? '').trim();
			if (filename !== '') {
				const length = characterCount(filename);
				if (length > CHAT_TEXT_LIMITS.filenameMaxCharacters) {
					failItem(node, i, `"File Name" must be at most ${CHAT_TEXT_LIMITS.filenameMaxCharacters} characters (it has ${length})`);
				}
				media.filename = filename;
			}
		}
		body[kind] = media;
	} else if (type === 'template') {
		body.template = await templateMessage(ctx, cache, i);
	} else {
		failItem(node, i, `"Message Type" must be text, image, document, video or template (got "${type}")`);
	}
	return {
		body,
		identity: { phoneNumber: phone.e164, type },
		output: (data) => ({
			accepted: true,
			...data,
			type,
			recipientType,
			...(type === 'template' ? { templateName: (body.template as IDataObject).name } : {}),
		}),
	};
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const cache: SendCache = { templates: new Map(), verified: new Map() };
	const prepared = await prepareAll(this, items, async (i) => await prepare(this, cache, i));
	const sandbox = String((await getServiceCredentials.call(this, 'apiKey')).apiKey ?? '').startsWith('svc_test_');
	if (sandbox) {
		for (const p of prepared) {
			if ('output' in p) {
				const output = p.output;
				p.output = (data) => ({ ...output(data), sandbox: true });
			}
		}
	}
	return await postOnce(this, prepared, SERVICE.paths.chatMessages, 'chat message', (i) => ({
		phoneNumber: this.getNodeParameter('phoneNumber', i, ''),
	}));
}
