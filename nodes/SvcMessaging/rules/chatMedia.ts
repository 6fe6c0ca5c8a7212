import type { IExecuteFunctions } from 'n8n-workflow';

import { withValue } from './errorText';
import { failItem } from './fields';
import { ARTICLE, CHAT_MEDIA, orList, privateHostRule, type MediaKind } from './mediaTypes';
import { verifyMediaLink } from './mediaVerify';
import { privateHostProblem } from './privateAddress';
import { urlProblem } from './schemas';

export { CHAT_MEDIA, type MediaKind } from './mediaTypes';

export const CHAT_TEXT_LIMITS = { captionMaxCharacters: 1024, filenameMaxCharacters: 240 } as const;

/**
 * Why a media link cannot be sent as `kind` (judged from the link alone, without DNS), or undefined.
 * A link to a private, loopback or link-local address is refused unless `allowPrivateHosts`.
 */
export function mediaLinkProblem(link: string, kind: MediaKind, allowPrivateHosts = false): string | undefined {
	const syntax = urlProblem(link.trim(), true);
	if (syntax) return syntax === 'must start with https://' ? 'must be a public HTTPS URL (starting with https://)' : syntax;
	const url = new URL(link.trim());
	const privateHost = allowPrivateHosts ? undefined : privateHostProblem(url.hostname);
	if (privateHost) return privateHostRule(privateHost);
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

/**
 * A media link: present, to a public host (unless `allowPrivateHosts`), of an allowed type by its
 * name and, with "Verify Media Link", by a HEAD request (once per link and kind in a run: `verified`).
 */
export async function checkMediaLink(
	ctx: IExecuteFunctions,
	verified: Map<string, Promise<string | undefined>>,
	i: number,
	label: string,
	link: string,
	kind: MediaKind,
	verify: boolean,
	allowPrivateHosts = false,
): Promise<string> {
	const trimmed = link.trim();
	if (!trimmed) failItem(ctx.getNode(), i, `"${label}" must not be empty`);
	const problem = mediaLinkProblem(trimmed, kind, allowPrivateHosts);
	if (problem) failItem(ctx.getNode(), i, `"${label}" ${withValue(problem, trimmed)}`);
	if (verify) {
		const key = `${kind} ${allowPrivateHosts} ${trimmed}`;
		if (!verified.has(key)) verified.set(key, verifyMediaLink(ctx, trimmed, kind, allowPrivateHosts));
		const verdict = await verified.get(key);
		if (verdict) failItem(ctx.getNode(), i, `"${label}" ${verdict}`);
	}
	return trimmed;
}
