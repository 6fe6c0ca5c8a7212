import type { IExecuteFunctions } from 'n8n-workflow';

import { failItem } from './fields';

/** Chat media kinds and the spec's Limits: file types (checked by extension and content type) and sizes. */
export type MediaKind = 'image' | 'document' | 'video';

const MB = 1024 * 1024;

export const CHAT_MEDIA: Record<MediaKind, { label: string; extensions: string[]; contentTypes: string[]; maxBytes: number }> = {
	image: {
		label: 'JPEG, PNG or WEBP',
		extensions: ['jpg', 'jpeg', 'png', 'webp'],
		contentTypes: ['image/jpeg', 'image/png', 'image/webp'],
		maxBytes: 5 * MB,
	},
	document: {
		label: 'PDF, DOC, DOCX, XLS, XLSX, PPT or PPTX',
		extensions: ['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx'],
		contentTypes: [
			'application/pdf',
			'application/msword',
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			'application/vnd.ms-excel',
			'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			'application/vnd.ms-powerpoint',
			'application/vnd.openxmlformats-officedocument.presentationml.presentation',
		],
		maxBytes: 100 * MB,
	},
	video: {
		label: 'MP4 or 3GPP',
		extensions: ['mp4', '3gp', '3gpp'],
		contentTypes: ['video/mp4', 'video/3gpp'],
		maxBytes: 16 * MB,
	},
};

const ARTICLE: Record<MediaKind, string> = { image: 'an image', document: 'a document', video: 'a video' };

export const CHAT_TEXT_LIMITS = { captionMaxCharacters: 1024, filenameMaxCharacters: 240 } as const;

/** Why a media link cannot be sent as `kind` (judged from the link alone), or undefined. */
export function mediaLinkProblem(link: string, kind: MediaKind): string | undefined {
	let url: URL;
	try {
		url = new URL(link.trim());
	} catch {
		return 'must be a full URL starting with https://';
	}
	if (url.protocol !== 'https:') return 'must be a public HTTPS URL (starting with https://)';
	const file = url.pathname.split('/').pop() ?? '';
	const dot = file.lastIndexOf('.');
	const extension = dot > 0 ? file.slice(dot + 1).toLowerCase() : '';
	const allowed = CHAT_MEDIA[kind];
	if (!allowed.extensions.includes(extension)) {
		return `must link to ${ARTICLE[kind]} file (${allowed.label}): its path must end in ${orList(allowed.extensions.map((e) => `.${e}`))} (${
			extension ? `got .${extension}` : 'it has no file extension'
		})`;
	}
	return undefined;
}

function orList(values: string[]): string {
	return values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` : values.join('');
}

function formatBytes(bytes: number): string {
	return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * "Verify Media Link": a HEAD request through n8n's own HTTP helper; the link must answer 2xx with
 * an allowed content type and, when it states its size, no more than the kind's limit.
 * Returns the problem, or undefined when the link passes.
 */
export async function verifyMediaLink(ctx: IExecuteFunctions, link: string, kind: MediaKind): Promise<string | undefined> {
	let response: { statusCode: number; headers: Record<string, unknown> };
	try {
		response = (await ctx.helpers.httpRequest({
			method: 'HEAD',
			url: link,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 15_000,
		})) as typeof response;
	} catch (error) {
		return `could not be checked: the HEAD request failed (${(error as Error).message})`;
	}
	if (response.statusCode < 200 || response.statusCode >= 300) {
		return `answered HTTP ${response.statusCode} to a HEAD request; it must be publicly reachable`;
	}
	const header = (name: string) => {
		const value = response.headers?.[name] ?? response.headers?.[name.toLowerCase()];
		return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
	};
	const allowed = CHAT_MEDIA[kind];
	const contentType = (header('content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (!allowed.contentTypes.includes(contentType)) {
		return `has content type ${contentType ? `"${contentType}"` : '(none)'}; ${ARTICLE[kind]} must be ${allowed.label} (${orList(allowed.contentTypes)})`;
	}
	const length = Number(header('content-length'));
	if (Number.isFinite(length) && length > allowed.maxBytes) {
		return `is ${formatBytes(length)}; ${ARTICLE[kind]} may be at most ${formatBytes(allowed.maxBytes)}`;
	}
	return undefined;
}

/**
 * A media link: present, of an allowed type by its name and, with "Verify Media Link", by a HEAD
 * request (once per link and kind in a run: `verified`).
 */
export async function checkMediaLink(
	ctx: IExecuteFunctions,
	verified: Map<string, Promise<string | undefined>>,
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
		if (!verified.has(key)) verified.set(key, verifyMediaLink(ctx, trimmed, kind));
		const verdict = await verified.get(key);
		if (verdict) failItem(ctx.getNode(), i, `"${label}" ${verdict}`);
	}
	return trimmed;
}
