import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { CHAT_TEXT_LIMITS, checkMediaLink, type MediaKind } from '../../rules/chatMedia';
import { checkField } from '../../rules/fields';
import { checkPhone } from '../../rules/phone';
import { oneOf, textField } from '../../rules/schemas';
import type { PreparedPost } from '../../sending/postEach';
import { INPUT_LIMITS, SERVICE } from '../../transport/service';
import { templateMessage, type TemplateCache } from './templateMessage';

export const MEDIA_TYPES: MediaKind[] = ['image', 'document', 'video'];

const TEXT = textField({ visible: true, max: INPUT_LIMITS.maxChatTextCharacters });
const CAPTION = textField({ required: false, max: CHAT_TEXT_LIMITS.captionMaxCharacters });
const FILE_NAME = textField({ required: false, max: CHAT_TEXT_LIMITS.filenameMaxCharacters });
const RECIPIENT_TYPE = oneOf(['individual', 'group'] as const);
const MESSAGE_TYPE = oneOf(['text', 'image', 'document', 'video', 'template'] as const);

/** Per execution: templates looked up and media links verified once, however many items use them. */
export interface SendCache {
	templates: TemplateCache;
	verified: Map<string, Promise<string | undefined>>;
}

export function newSendCache(): SendCache {
	return { templates: new Map(), verified: new Map() };
}

/** The image, document or video object of item `i`: link, caption and (documents) file name, checked. */
async function mediaMessage(ctx: IExecuteFunctions, cache: SendCache, i: number, kind: MediaKind, options: IDataObject): Promise<IDataObject> {
	const node = ctx.getNode();
	const rawLink = checkField(node, textField({ required: false }), ctx.getNodeParameter('mediaLink', i, '') ?? '', i, 'Media Link');
	const verify = options.verifyMediaLink === true;
	const link = await checkMediaLink(ctx, cache.verified, i, 'Media Link', rawLink, kind, verify, options.allowPrivateMediaHosts === true);
	const media: IDataObject = { link };
	const caption = checkField(node, CAPTION, ctx.getNodeParameter('caption', i, '') ?? '', i, 'Caption');
	if (caption !== '') media.caption = caption;
	if (kind === 'document') {
		const filename = checkField(node, FILE_NAME, ctx.getNodeParameter('filename', i, '') ?? '', i, 'File Name').trim();
		if (filename !== '') media.filename = filename;
	}
	return media;
}

/** A chat message to post; a template message also has the text its recipient reads. */
export interface PreparedChatMessage extends PreparedPost {
	templateText?: string;
}

/** Item `i`'s chat message, checked for its message type. */
export async function prepareChatMessage(ctx: IExecuteFunctions, cache: SendCache, i: number): Promise<PreparedChatMessage> {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const phoneNumber = checkPhone(node, i, ctx.getNodeParameter('phoneNumber', i), options, 'format');
	// Version 2's Send Template has no Message Type field: the operation is the type.
	const messageType = ctx.getNodeParameter('operation', 0) === 'sendTemplate' ? 'template' : ctx.getNodeParameter('messageType', i);
	const type = checkField(node, MESSAGE_TYPE, messageType, i, 'Message Type');
	const recipientType = checkField(node, RECIPIENT_TYPE, ctx.getNodeParameter('recipientType', i, 'individual'), i, 'Recipient Type');
	const body: IDataObject = { phoneNumber, type, recipientType };

	if (type === 'text') {
		body.text = { body: checkField(node, TEXT, ctx.getNodeParameter('text', i, ''), i, 'Text') };
	} else if ((MEDIA_TYPES as string[]).includes(type)) {
		const kind = type as MediaKind;
		body[kind] = await mediaMessage(ctx, cache, i, kind, options);
	} else {
		const { template, text } = await templateMessage(ctx, cache.templates, i);
		body.template = template;
		return { body, templateText: text };
	}
	return { body };
}

/**
 * An accepted chat message's output: the service's answer with what was sent. `withVariables`
 * (node version 2; version 1's outputs stay as they were): a template's text as sent and its
 * values, by field id.
 */
export function acceptedChatMessage({ body, templateText }: PreparedChatMessage, data: IDataObject, withVariables = true): IDataObject {
	return {
		accepted: true,
		...data,
		type: body.type,
		recipientType: body.recipientType,
		...(body.type === 'template' ? { templateName: (body.template as IDataObject).name } : {}),
		...(body.type === 'template' && withVariables ? { text: templateText, templateVariables: sentVariables(body.template as IDataObject) } : {}),
	};
}

/** The values a template message filled, by the mapper's field ids (`header_1`, `body_2`). */
function sentVariables(template: IDataObject): IDataObject {
	const values: IDataObject = {};
	for (const component of (template.components as IDataObject[] | undefined) ?? []) {
		((component.parameters as IDataObject[] | undefined) ?? []).forEach((parameter, k) => (values[`${String(component.type)}_${k + 1}`] = parameter.text));
	}
	return values;
}

/** A dry run's output of a chat message: what would be sent and its cost (docs/assumptions.md: 1 credit each). */
export function pricedChatMessage({ body }: PreparedPost): IDataObject {
	return {
		accepted: false,
		phoneNumber: body.phoneNumber,
		type: body.type,
		recipientType: body.recipientType,
		...(body.type === 'template' ? { templateName: (body.template as IDataObject).name } : {}),
		credits: SERVICE.chatCreditsPerMessage,
		sendAt: 'now',
	};
}
