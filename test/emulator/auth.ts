/** API keys, HS256 access tokens (node crypto) and POST /api/auth/login. */
import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IncomingHttpHeaders } from 'http';

import { ok, unauthorized, type Reply } from './http';
import type { Runtime } from './runtime';
import type { Account, ApiKeyRecord } from './state';
import { objectBody, reqString } from './validate';

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

interface Claims {
	sub: string;
	iat: number;
	exp: number;
	gen: number;
	jti: string;
}

export function signAccessToken(rt: Runtime, accountId: string, nowMs: number): string {
	const iat = Math.floor(nowMs / 1000);
	const claims: Claims = {
		sub: accountId,
		iat,
		exp: iat + rt.tokenTtlSeconds,
		gen: rt.tokenGeneration,
		jti: randomBytes(8).toString('hex'),
	};
	const data = `${HEADER}.${b64(JSON.stringify(claims))}`;
	return `${data}.${createHmac('sha256', rt.jwtSecret).update(data).digest('base64url')}`;
}

/** The claims of a token signed by this emulator, or null for anything forged or malformed. */
function verifySignature(rt: Runtime, token: string): Claims | null {
	const parts = token.split('.');
	if (parts.length !== 3) return null;
	// Compared as the canonical base64url text, as JWT libraries do: decoding would ignore the last
	// character's spare bits, so a forged signature differing only there would pass.
	const expected = Buffer.from(createHmac('sha256', rt.jwtSecret).update(`${parts[0]}.${parts[1]}`).digest('base64url'));
	const given = Buffer.from(parts[2]);
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
	try {
		const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
		const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
		if (header?.alg !== 'HS256' || typeof claims?.sub !== 'string' || typeof claims?.exp !== 'number') return null;
		return claims as Claims;
	} catch {
		return null;
	}
}

export function authenticateBearer(rt: Runtime, headers: IncomingHttpHeaders, nowMs: number): Account {
	const header = headers.authorization;
	if (!header) throw unauthorized('Missing Authorization header: use Authorization: Bearer <ACCESS_TOKEN>');
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
	if (!match) throw unauthorized('Authorization header must be: Bearer <ACCESS_TOKEN>');
	const claims = verifySignature(rt, match[1]);
	if (!claims) throw unauthorized('Invalid access token');
	if (claims.exp * 1000 <= nowMs || claims.gen !== rt.tokenGeneration) throw unauthorized('Access token expired');
	const account = rt.state.accounts.get(claims.sub);
	if (!account) throw unauthorized('Invalid access token');
	return account;
}

export function authenticateApiKey(
	rt: Runtime,
	headers: IncomingHttpHeaders,
): { apiKey: ApiKeyRecord; account: Account } {
	const raw = headers['x-api-key'];
	const key = Array.isArray(raw) ? raw[0] : raw;
	if (!key) throw unauthorized('Missing API key: send it in the x-api-key header');
	const apiKey = rt.state.keys.get(key);
	const account = apiKey && rt.state.accounts.get(apiKey.accountId);
	if (!apiKey || !account) throw unauthorized('Invalid API key');
	return { apiKey, account };
}

export function login(rt: Runtime, rawBody: unknown, nowMs: number): Reply {
	const body = objectBody(rawBody);
	const email = reqString(body, 'email');
	const password = reqString(body, 'password');
	const account = [...rt.state.accounts.values()].find((a) => a.email.toLowerCase() === email.toLowerCase());
	const given = Buffer.from(password);
	const expected = Buffer.from(account?.password ?? '');
	if (!account || given.length !== expected.length || !timingSafeEqual(given, expected)) {
		throw unauthorized('Invalid email or password');
	}
	return ok({
		accessToken: signAccessToken(rt, account.id, nowMs),
		refreshToken: `rt_${randomBytes(24).toString('hex')}`,
		expiresIn: rt.tokenTtlSeconds,
	});
}
