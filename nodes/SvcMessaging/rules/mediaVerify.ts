import type { IExecuteFunctions } from 'n8n-workflow';

import { MEDIA_CHECK } from './mediaCheck';
import { ARTICLE, CHAT_MEDIA, formatBytes, orList, privateHostRule, type MediaKind } from './mediaTypes';
import { hostAddresses } from '../platform/hostAddresses';
import { privateHostProblem, privateRangeOf } from './privateAddress';

interface HeadResponse {
	statusCode: number;
	headers: Record<string, unknown>;
}

/**
 * Why the host of `url` must not be requested from the n8n host, or undefined: the name itself
 * (IP literal, localhost), then every address it resolves to (one private address is enough to
 * refuse: the connection may use any of them). An edition that cannot resolve names (n8n Cloud:
 * platform/hostAddresses.ts) checks the name only.
 */
async function hostProblem(url: URL): Promise<string | undefined> {
	const named = privateHostProblem(url.hostname);
	if (named) return privateHostRule(named);
	const host = url.hostname.replace(/^\[|\]$/g, '');
	if (!hostAddresses) return undefined;
	let addresses: string[];
	try {
		addresses = await hostAddresses(host);
	} catch {
		return `could not be checked: its host name ${host} did not resolve`;
	}
	for (const address of addresses) {
		const range = privateRangeOf(address);
		if (range) return privateHostRule(`${host} resolves to ${address}, ${range}`);
	}
	return undefined;
}

function headerOf(response: HeadResponse, name: string): string | undefined {
	const value = response.headers?.[name] ?? response.headers?.[name.toLowerCase()];
	return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

/**
 * "Verify Media Link": a HEAD request through n8n's own HTTP helper; the link must answer 2xx with
 * an allowed content type and, when it states its size, no more than the kind's limit. Unless
 * `allowPrivateHosts`, the host is resolved first and refused when any address is private, and
 * redirects are followed here (at most MEDIA_CHECK.maxRedirects), each target checked the same way
 * before it is requested.
 *
 * n8n's HTTP helper resolves the name again when it connects and takes no resolver or agent of
 * ours, so a DNS server that answers a public address to the check and a private one a moment later
 * (DNS rebinding) is not stopped here; the check stops every link whose host resolves privately now.
 *
 * Returns the problem, or undefined when the link passes.
 */
export async function verifyMediaLink(ctx: IExecuteFunctions, link: string, kind: MediaKind, allowPrivateHosts = false): Promise<string | undefined> {
	let url = new URL(link);
	let response: HeadResponse;
	for (let redirects = 0; ; redirects++) {
		const problem = allowPrivateHosts ? undefined : await hostProblem(url);
		if (problem) return redirects === 0 ? problem : `redirects to ${url.href}, which ${problem}`;
		try {
			response = (await ctx.helpers.httpRequest({
				method: 'HEAD',
				url: url.href,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: MEDIA_CHECK.headTimeoutMs,
			})) as HeadResponse;
		} catch (error) {
			return `could not be checked: the HEAD request failed (${(error as Error).message})`;
		}
		const location = headerOf(response, 'location');
		if (response.statusCode < 300 || response.statusCode >= 400 || location === undefined) break;
		if (redirects >= MEDIA_CHECK.maxRedirects) return `redirects more than ${MEDIA_CHECK.maxRedirects} times`;
		try {
			url = new URL(location, url);
		} catch {
			return 'redirects to an address that is not a valid URL';
		}
		if (url.protocol !== 'https:') return `redirects to ${url.href}, which is not an HTTPS URL`;
	}
	if (response.statusCode < 200 || response.statusCode >= 300) {
		return `answered HTTP ${response.statusCode} to a HEAD request; it must be publicly reachable`;
	}
	const allowed = CHAT_MEDIA[kind];
	const contentType = (headerOf(response, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (!allowed.contentTypes.includes(contentType)) {
		return `has content type ${contentType ? `"${contentType}"` : '(none)'}; ${ARTICLE[kind]} must be ${allowed.label} (${orList(allowed.contentTypes)})`;
	}
	const length = Number(headerOf(response, 'content-length'));
	if (Number.isFinite(length) && length > allowed.maxBytes) {
		return `is ${formatBytes(length)}; ${ARTICLE[kind]} may be at most ${formatBytes(allowed.maxBytes)}`;
	}
	return undefined;
}
