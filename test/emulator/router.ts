/** Route table types and path matching (`:param` segments). */
import type { IncomingHttpHeaders } from 'http';

import { unauthorized, type Reply } from './http';
import type { Runtime } from './runtime';
import type { Account, ApiKeyRecord } from './state';

export type AuthKind = 'apiKey' | 'bearer' | 'none';

export interface Ctx {
	rt: Runtime;
	params: Record<string, string>;
	query: URLSearchParams;
	body: unknown;
	headers: IncomingHttpHeaders;
	/** emulator time at arrival */
	now: number;
	account: Account | null;
	apiKey: ApiKeyRecord | null;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface Route {
	method: string;
	path: string;
	auth: AuthKind;
	handler: Handler;
}

export function route(method: string, path: string, auth: AuthKind, handler: Handler): Route {
	return { method, path, auth, handler };
}

export function matchRoute(
	routes: Route[],
	method: string,
	path: string,
): { route: Route; params: Record<string, string> } | null {
	const parts = path.split('/');
	for (const candidate of routes) {
		if (candidate.method !== method) continue;
		const pattern = candidate.path.split('/');
		if (pattern.length !== parts.length) continue;
		const params: Record<string, string> = {};
		let matched = true;
		for (let i = 0; i < pattern.length && matched; i++) {
			if (pattern[i].startsWith(':')) {
				if (parts[i] === '') matched = false;
				else {
					try {
						params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
					} catch {
						matched = false;
					}
				}
			} else matched = pattern[i] === parts[i];
		}
		if (matched) return { route: candidate, params };
	}
	return null;
}

/** The authenticated account of a K or J route. */
export function accountOf(ctx: Ctx): Account {
	if (!ctx.account) throw unauthorized('Not authenticated');
	return ctx.account;
}
