/** GET message, batch and delivery-rate analytics (the key's own account only; others are 404). */
import { ANALYTICS_DEFAULT_DAYS } from './assumptions';
import { badRequest, iso, notFound, ok, type Reply } from './http';
import { isFinal } from './lifecycle';
import { accountOf, route, type Ctx, type Route } from './router';
import type { SmsMessage } from './state';

export function messageView(m: SmsMessage) {
	return {
		messageId: m.messageId,
		phoneNumber: m.phoneNumber,
		message: m.message,
		status: m.status,
		senderId: m.senderId,
		segments: m.segments,
		creditsUsed: m.creditsUsed,
		deliveredAt: iso(m.deliveredAt),
		sentAt: iso(m.sentAt),
		createdAt: iso(m.createdAt),
	};
}

function getMessage(ctx: Ctx): Reply {
	const m = ctx.rt.state.messages.get(ctx.params.messageId);
	if (!m || m.accountId !== accountOf(ctx).id) throw notFound(`Message '${ctx.params.messageId}' not found`);
	return ok(messageView(m));
}

function getBatch(ctx: Ctx): Reply {
	const batch = ctx.rt.state.batches.get(ctx.params.batchId);
	if (!batch || batch.accountId !== accountOf(ctx).id) throw notFound(`Batch '${ctx.params.batchId}' not found`);
	const messages = batch.messageIds.map((id) => ctx.rt.state.messages.get(id)).filter((m): m is SmsMessage => !!m);
	const count = (status: string) => messages.filter((m) => m.status === status).length;
	const done = messages.every(isFinal);
	return ok({
		batchId: batch.batchId,
		status: done ? 'COMPLETED' : 'PROCESSING',
		total: messages.length,
		delivered: count('DELIVERED'),
		failed: count('FAILED'),
		pending: messages.filter((m) => !isFinal(m)).length,
		expired: count('EXPIRED'),
		completedAt: done ? iso(Math.max(...messages.map((m) => m.finalAt as number))) : null,
	});
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** Start (or end, inclusive) of a date or date-time query parameter. */
function dateParam(ctx: Ctx, name: string, fallback: number, end: boolean): { text: string; ms: number } {
	const raw = ctx.query.get(name);
	if (raw === null || raw === '') {
		const text = new Date(fallback).toISOString().slice(0, 10);
		return { text, ms: Date.parse(text) + (end ? DAY_MS - 1 : 0) };
	}
	const ms = Date.parse(raw);
	if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) throw badRequest(`${name} must be an ISO 8601 date`);
	return { text: raw, ms: DATE_ONLY.test(raw) && end ? ms + DAY_MS - 1 : ms };
}

function deliveryRates(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const start = dateParam(ctx, 'startDate', ctx.now - ANALYTICS_DEFAULT_DAYS * DAY_MS, false);
	const end = dateParam(ctx, 'endDate', ctx.now, true);
	if (start.ms > end.ms) throw badRequest('startDate must not be after endDate');
	const sent = [...ctx.rt.state.messages.values()].filter(
		(m) => m.accountId === account.id && m.createdAt >= start.ms && m.createdAt <= end.ms && m.sentAt !== null,
	);
	const delivered = sent.filter((m) => m.status === 'DELIVERED');
	const avgMs =
		delivered.length === 0
			? 0
			: delivered.reduce((sum, m) => sum + ((m.deliveredAt as number) - (m.sentAt as number)), 0) / delivered.length;
	return ok({
		period: `${start.text}/${end.text}`,
		totalSent: sent.length,
		delivered: delivered.length,
		failed: sent.filter((m) => m.status === 'FAILED').length,
		expired: sent.filter((m) => m.status === 'EXPIRED').length,
		deliveryRate: sent.length === 0 ? 0 : Math.round((delivered.length / sent.length) * 10000) / 100,
		averageDeliveryTime: `${(avgMs / 1000).toFixed(1)}s`,
	});
}

export const lookupRoutes: Route[] = [
	route('GET', '/api/sms/messages/:messageId', 'apiKey', getMessage),
	route('GET', '/api/sms/batches/:batchId', 'apiKey', getBatch),
	route('GET', '/api/sms/analytics/delivery-rates', 'apiKey', deliveryRates),
];
