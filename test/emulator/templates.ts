/** Chat templates (API key): create, list, get, delete, and the scaled automatic review. */
import {
	TEMPLATE_PAGE,
	TEMPLATE_REJECT_MARKER,
	TEMPLATE_REJECTED_REASON,
	TEMPLATE_REVIEW_MS,
} from './assumptions';
import { ApiError, iso, newId, notFound, ok, type Reply } from './http';
import { accountOf, route, type Ctx, type Route } from './router';
import type { Runtime } from './runtime';
import { templateKey, type Template, type TemplateStatus } from './state';
import { checkTemplate } from './templateRules';
import { intQuery, objectBody, paginate, reqString } from './validate';

export function templateView(t: Template) {
	return {
		id: t.id,
		name: t.name,
		status: t.status,
		category: t.category,
		language: t.language,
		components: structuredClone(t.components),
		rejectedReason: t.rejectedReason,
		createdAt: iso(t.createdAt),
		approvedAt: iso(t.approvedAt),
	};
}

/** Sets a review outcome (automatic review or the control surface). */
export function setTemplateStatus(t: Template, status: TemplateStatus, at: number, reason?: string | null): void {
	t.status = status;
	t.updatedAt = at;
	t.rejectedReason = status === 'REJECTED' ? (reason ?? TEMPLATE_REJECTED_REASON) : null;
	if (status === 'APPROVED') t.approvedAt = at;
	t.reviewSeq++;
}

function scheduleReview(rt: Runtime, t: Template): void {
	const seq = t.reviewSeq;
	const epoch = rt.state.epoch;
	rt.clock.schedule(t.createdAt + rt.clock.scale(TEMPLATE_REVIEW_MS), (at) => {
		if (rt.state.epoch !== epoch || t.reviewSeq !== seq || t.status !== 'PENDING') return;
		const rejected = t.name.toLowerCase().includes(TEMPLATE_REJECT_MARKER);
		setTemplateStatus(t, rejected ? 'REJECTED' : 'APPROVED', at);
	});
}

function create(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const body = objectBody(ctx.body);
	const name = reqString(body, 'name');
	const category = reqString(body, 'category');
	const language = reqString(body, 'language');
	const shape = checkTemplate(category, body.components);
	const key = templateKey(account.id, name);
	if (ctx.rt.state.templates.has(key)) {
		throw new ApiError(409, 'TEMPLATE_ALREADY_EXISTS', `A template named '${name}' already exists`);
	}
	const t: Template = {
		id: newId('tpl'),
		accountId: account.id,
		name,
		category,
		language,
		components: structuredClone(body.components as unknown[]),
		status: 'PENDING',
		rejectedReason: null,
		...shape,
		createdAt: ctx.now,
		updatedAt: ctx.now,
		approvedAt: null,
		reviewSeq: 0,
	};
	ctx.rt.state.templates.set(key, t);
	scheduleReview(ctx.rt, t);
	return ok({ id: t.id, name, status: t.status, category, language, createdAt: iso(t.createdAt) }, 201);
}

function find(ctx: Ctx): Template {
	const t = ctx.rt.state.templates.get(templateKey(accountOf(ctx).id, ctx.params.name));
	if (!t) throw notFound(`Template '${ctx.params.name}' not found`);
	return t;
}

function list(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const page = intQuery(ctx.query, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
	const limit = intQuery(ctx.query, 'limit', TEMPLATE_PAGE.defaultLimit, 1, TEMPLATE_PAGE.maxLimit);
	const filters = (['status', 'category', 'language'] as const)
		.map((field) => [field, ctx.query.get(field)] as const)
		.filter(([, value]) => value !== null && value !== '');
	const mine = [...ctx.rt.state.templates.values()]
		.filter((t) => t.accountId === account.id && filters.every(([field, value]) => t[field] === value))
		.reverse();
	const { data, total, totalPages } = paginate(mine, page, limit);
	return { status: 200, body: { success: true, data: data.map(templateView), pagination: { page, limit, total, totalPages } } };
}

function remove(ctx: Ctx): Reply {
	const t = find(ctx);
	t.reviewSeq++;
	ctx.rt.state.templates.delete(templateKey(t.accountId, t.name));
	return ok({ name: t.name, deleted: true });
}

export const templateRoutes: Route[] = [
	route('POST', '/api/chat/templates', 'apiKey', create),
	route('GET', '/api/chat/templates', 'apiKey', list),
	route('GET', '/api/chat/templates/:name', 'apiKey', (ctx) => ok(templateView(find(ctx)))),
	route('DELETE', '/api/chat/templates/:name', 'apiKey', remove),
];
