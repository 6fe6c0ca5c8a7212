/** POST /api/chat/messages (API key): text, media and template messages, 1 credit each. */
import { CHAT_CREDITS_PER_MESSAGE, CHAT_MEDIA_EXTENSIONS, CHAT_PHONE_PATTERN } from './assumptions';
import { ApiError, badRequest, codePoints, newId, ok, unprocessable, type Reply } from './http';
import { CHAT_CAPTION_MAX, CHAT_FILENAME_MAX, CHAT_MESSAGE_TYPES, CHAT_RECIPIENT_TYPES } from './limits';
import { charge } from './rules';
import { accountOf, route, type Ctx, type Route } from './router';
import { templateKey, type Account, type EmulatorState } from './state';
import { isObject, objectBody, optString, reqString, type Obj } from './validate';

type MediaKind = keyof typeof CHAT_MEDIA_EXTENSIONS;

function requiredObject(body: Obj, field: string, type: string): Obj {
	const value = body[field];
	if (value === undefined || value === null) throw badRequest(`${field} is required when type is ${type}`);
	if (!isObject(value)) throw badRequest(`${field} must be an object`);
	return value;
}

function checkMedia(kind: MediaKind, media: Obj): void {
	const link = reqString(media, 'link', `${kind}.link`);
	const caption = optString(media, 'caption', `${kind}.caption`);
	const filename = optString(media, 'filename', `${kind}.filename`);
	if (caption !== undefined && codePoints(caption) > CHAT_CAPTION_MAX) {
		throw badRequest(`${kind}.caption must be at most ${CHAT_CAPTION_MAX} characters`);
	}
	if (filename !== undefined && kind !== 'document') throw badRequest(`${kind}.filename is allowed only for documents`);
	if (filename !== undefined && codePoints(filename) > CHAT_FILENAME_MAX) {
		throw badRequest(`${kind}.filename must be at most ${CHAT_FILENAME_MAX} characters`);
	}
	let url: URL | null = null;
	try {
		url = new URL(link);
	} catch {}
	if (!url || url.protocol !== 'https:') {
		throw unprocessable('INVALID_MEDIA_URL', `${kind}.link must be a public HTTPS URL`);
	}
	const extension = /\.([A-Za-z0-9]+)$/.exec(url.pathname)?.[1]?.toLowerCase();
	const allowed = CHAT_MEDIA_EXTENSIONS[kind];
	if (!extension || !allowed.includes(extension)) {
		throw unprocessable('INVALID_MEDIA_URL', `${kind}.link must point to a ${allowed.join(', ')} file`);
	}
}

interface TemplateRequest {
	name: string;
	language: string;
	header: number;
	body: number;
}

function parseTemplate(template: Obj): TemplateRequest {
	const name = reqString(template, 'name', 'template.name');
	const language = template.language;
	if (!isObject(language)) throw badRequest('template.language must be an object {code}');
	const code = reqString(language, 'code', 'template.language.code');
	const counts = { header: 0, body: 0 };
	const components = template.components ?? [];
	if (!Array.isArray(components)) throw badRequest('template.components must be an array');
	const seen = new Set<string>();
	components.forEach((component, i) => {
		const at = `template.components[${i}]`;
		if (!isObject(component)) throw badRequest(`${at} must be an object`);
		const type = reqString(component, 'type', `${at}.type`);
		if (type !== 'header' && type !== 'body') throw badRequest(`${at}.type must be 'header' or 'body'`);
		if (seen.has(type)) throw badRequest(`${at}: only one '${type}' component is allowed`);
		seen.add(type);
		const parameters = component.parameters ?? [];
		if (!Array.isArray(parameters)) throw badRequest(`${at}.parameters must be an array`);
		parameters.forEach((p, j) => {
			if (!isObject(p) || p.type !== 'text' || typeof p.text !== 'string') {
				throw badRequest(`${at}.parameters[${j}] must be {type: 'text', text: string}`);
			}
		});
		counts[type] = parameters.length;
	});
	return { name, language: code, ...counts };
}

function checkTemplateUse(state: EmulatorState, account: Account, req: TemplateRequest): void {
	const t = state.templates.get(templateKey(account.id, req.name));
	const invalid = (message: string) => unprocessable('INVALID_TEMPLATE', message);
	if (!t) throw invalid(`Template '${req.name}' does not exist`);
	if (t.status !== 'APPROVED') throw invalid(`Template '${req.name}' is ${t.status}; only APPROVED templates can be sent`);
	if (t.language !== req.language) throw invalid(`Template '${req.name}' exists in '${t.language}', not '${req.language}'`);
	if (t.bodyVariables !== req.body) {
		throw invalid(`Template '${req.name}' body takes ${t.bodyVariables} parameter(s), ${req.body} given`);
	}
	if (t.headerVariables !== req.header) {
		throw invalid(`Template '${req.name}' header takes ${t.headerVariables} parameter(s), ${req.header} given`);
	}
}

function send(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const body = objectBody(ctx.body);
	const phoneNumber = reqString(body, 'phoneNumber');
	if (!CHAT_PHONE_PATTERN.test(phoneNumber)) throw badRequest('phoneNumber must be in E.164 format (+ and country code)');
	const type = reqString(body, 'type');
	if (!(CHAT_MESSAGE_TYPES as readonly string[]).includes(type)) {
		throw badRequest(`type must be one of ${CHAT_MESSAGE_TYPES.join(', ')}`);
	}
	const recipientType = optString(body, 'recipientType') ?? 'individual';
	if (!(CHAT_RECIPIENT_TYPES as readonly string[]).includes(recipientType)) {
		throw badRequest(`recipientType must be one of ${CHAT_RECIPIENT_TYPES.join(', ')}`);
	}
	const content = requiredObject(body, type, type);
	let template: TemplateRequest | null = null;
	if (type === 'text') reqString(content, 'body', 'text.body');
	else if (type === 'template') template = parseTemplate(content);
	else checkMedia(type as MediaKind, content);

	if (!account.chatRegistered) {
		throw new ApiError(403, 'CHAT_NUMBER_NOT_REGISTERED', 'The chat sender number of this account is not registered');
	}
	if (!account.optIns.has(phoneNumber)) {
		throw new ApiError(403, 'CHAT_OPT_IN_REQUIRED', `Recipient ${phoneNumber} has not opted in to chat messages`);
	}
	if (template) checkTemplateUse(ctx.rt.state, account, template);
	charge(account, CHAT_CREDITS_PER_MESSAGE, ctx.now);
	const messageId = newId('chat');
	ctx.rt.state.chatMessages.push({
		messageId,
		accountId: account.id,
		phoneNumber,
		type,
		recipientType,
		content: structuredClone(content),
		status: 'SENT',
		creditsUsed: CHAT_CREDITS_PER_MESSAGE,
		createdAt: ctx.now,
	});
	return ok({
		messageId,
		status: 'SENT',
		phoneNumber,
		channel: 'chat',
		creditsUsed: CHAT_CREDITS_PER_MESSAGE,
		creditsRemaining: account.credits,
	});
}

export const chatRoutes: Route[] = [route('POST', '/api/chat/messages', 'apiKey', send)];
