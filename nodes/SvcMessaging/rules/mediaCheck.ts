/**
 * "Verify Media Link" (not in the spec): the HEAD request's time limit, and how many redirects it
 * follows, each target checked like the link itself (public host, HTTPS) before it is requested.
 */
export const MEDIA_CHECK = {
	headTimeoutMs: 15_000,
	maxRedirects: 3,
} as const;
