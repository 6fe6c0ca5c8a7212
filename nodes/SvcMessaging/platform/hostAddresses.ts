import { lookup } from 'node:dns/promises';

/**
 * The addresses a host name resolves to now, for "Verify Media Link" (rules/mediaVerify.ts), which
 * refuses a link when any of them is private; rejects when the name does not resolve. Name
 * resolution is reached only through this file: the n8n Cloud edition compiles
 * cloud/platform/hostAddresses.ts in its place (undefined there: verified nodes may not import node:dns).
 */
export const hostAddresses: ((host: string) => Promise<string[]>) | undefined = async (host) =>
	(await lookup(host, { all: true, verbatim: true })).map(({ address }) => address);
