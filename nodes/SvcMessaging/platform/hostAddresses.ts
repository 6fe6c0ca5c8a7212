import { lookup } from 'node:dns/promises';

/**
 * The addresses a host name resolves to now, for "Verify Media Link" (rules/mediaVerify.ts), which
 * refuses a link when any of them is private. Name resolution is reached only through this file: the
 * n8n Cloud edition compiles cloud/platform/hostAddresses.ts in its place (verified nodes may not
 * import node:dns). Rejects when the name does not resolve.
 */
export async function hostAddresses(host: string): Promise<string[] | undefined> {
	const addresses = await lookup(host, { all: true, verbatim: true });
	return addresses.map(({ address }) => address);
}
