/** Sender ID listing (API key) and account balance (Bearer). */
import { SENDER_IDS_PATH } from './assumptions';
import { iso, ok } from './http';
import { accountOf, route, type Route } from './router';
import type { SenderIdRecord } from './state';

export function senderIdView(s: SenderIdRecord) {
	return {
		id: s.id,
		senderId: s.senderId,
		status: s.status,
		type: s.type,
		countries: [...s.countries],
		createdAt: iso(s.createdAt),
	};
}

export const accountRoutes: Route[] = [
	route('GET', SENDER_IDS_PATH, 'apiKey', (ctx) => ok(accountOf(ctx).senderIds.map(senderIdView))),
	route('GET', '/api/account/balance', 'bearer', (ctx) => {
		const account = accountOf(ctx);
		return ok({ credits: account.credits, updatedAt: iso(account.creditsUpdatedAt) });
	}),
];
