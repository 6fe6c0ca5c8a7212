import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { CHAT_TEXT_LIMITS, mediaLinkProblem, verifyMediaLink, type MediaKind } from '../../rules/chatMedia';
import { checkField, failItem } from '../../rules/fields';
import { checkPhone } from '../../rules/phone';
import { oneOf, textField } from '../../rules/schemas';
import type { PreparedPost } from '../../sending/postEach';
import { INPUT_LIMITS } from '../../transport/service';
import { templateMessage, type TemplateCache } from './templateMessage';

export const MEDIA_TYPES: MediaKind[] = ['image', 'document', 'video'];

const TEXT = textField({ visible: true, max: INPUT_LIMITS.maxChatTextCharacters });
const CAPTION = textField({ required: false, max: CHAT_TEXT_LIMITS.captionMaxCharacters });
const FILE_NAME = textField({ required: false, max: CHAT_TEXT_LIMITS.filenameMaxCharacters });
const RECIPIENT_TYPE = oneOf(['individual', 'group'] as const);

/** Per execution: templates looked up and media links verified once, however many items use them. */
export interface SendCache {
	templates: TemplateCache;
	verified: Map<string, Promise<string | undefined>>;
}

export function newSendCache(): SendCache {
	return { templates: new Map(), verified: new Map() };
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

/** The image, document or video object of item `i`: link, caption and (documents) file name, checked. */
async function mediaMessage(ctx: IExecuteFunctions, cache: SendCache, i: number, kind: MediaKind, verify: boolean): Promise<IDataObject> {
	const node = ctx.getNode();
	const rawLink = checkField(node, textField({ required: false }), ctx.getNodeParameter('mediaLink', i, '') ?? '', i, 'Media Link');
	const link = await checkMedia(ctx, cache, i, 'Media Link', rawLink, kind, verify);
	const media: IDataObject = { link };
	const caption = checkField(node, CAPTION, ctx.getNodeParameter('caption', i, '') ?? '', i, 'Caption');
	if (caption !== '') media.caption = caption;
	if (kind === 'document') {
		const filename = checkField(node, FILE_NAME, ctx.getNodeParameter('filename', i, '') ?? '', i, 'File Name').trim();
		if (filename !== '') media.filename = filename;
	}
	return media;
}

/** Item `i`'s chat message, checked for its message type, with the output shown once it is accepted. */
export async function prepareChatMessage(ctx: IExecuteFunctions, cache: SendCache, i: number): Promise<PreparedPost> {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const phoneNumber = checkPhone(node, i, ctx.getNodeParameter('phoneNumber', i), options, 'format');
	const type = ctx.getNodeParameter('messageType', i) as string;
	const recipientType = checkField(node, RECIPIENT_TYPE, ctx.getNodeParameter('recipientType', i, 'individual'), i, 'Recipient Type');
	const verify = options.verifyMediaLink === true;
	const body: IDataObject = { phoneNumber, type, recipientType };

	if (type === 'text') {
		body.text = { body: checkField(node, TEXT, ctx.getNodeParameter('text', i, ''), i, 'Text') };
	} else if ((MEDIA_TYPES as string[]).includes(type)) {
		const kind = type as MediaKind;
		body[kind] = await mediaMessage(ctx, cache, i, kind, verify);
	} else if (type === 'template') {
		body.template = await templateMessage(ctx, cache.templates, i);
	} else {
		failItem(node, i, `"Message Type" must be text, image, document, video or template (got "${type}")`);
	}
	return {
		body,
		identity: { phoneNumber, type },
		output: (data) => ({
			accepted: true,
			...data,
			type,
			recipientType,
			...(type === 'template' ? { templateName: (body.template as IDataObject).name } : {}),
		}),
	};
}
