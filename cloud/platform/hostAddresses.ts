/**
 * The n8n Cloud edition resolves no host names (replaces nodes/SvcMessaging/platform/hostAddresses.ts,
 * which uses node:dns; a verified node may not import it). "Verify Media Link" (rules/mediaVerify.ts)
 * then checks the link's host as written: an IP literal in a private, loopback, link-local or reserved
 * range and local names (localhost, metadata.google.internal, …) are refused, for the link and for each
 * redirect, before any request; a public name that resolves to a private address is not (the HEAD
 * request then runs from n8n Cloud's network, not from the user's).
 */
export const hostAddresses: ((host: string) => Promise<string[]>) | undefined = undefined;
