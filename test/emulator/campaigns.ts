/** Campaigns (Bearer): bare objects on success, the error envelope on failure. */
import { CAMPAIGN_PAGE } from './assumptions';
import { ApiError, badRequest, bare, iso, notFound, unprocessable, type Reply } from './http';
import { acceptMessage, isFinal } from './lifecycle';
import {
	charge,
	creditsFor,
	formatCampaignNumber,
	invalidPhone,
	segmentInfo,
	senderCountryError,
	senderFormatError,
	smsCountry,
	tooLong,
} from './rules';
import { accountOf, route, type Ctx, type Route } from './router';
import type { Runtime } from './runtime';
import type { Account, Campaign, CampaignStatus, SmsMessage } from './state';
import {
	intQuery,
	objectBody,
	optFutureDateTime,
	optIntArray,
	optStringArray,
	paginate,
	reqString,
	type Obj,
} from './validate';

const EDITABLE: CampaignStatus[] = ['DRAFT', 'SCHEDULED'];
const DELETABLE: CampaignStatus[] = ['DRAFT', 'SCHEDULED', 'CANCELLED', 'COMPLETED', 'FAILED'];
const PATCH_FIELDS = ['name', 'message', 'senderId', 'manualNumbers', 'contactGroupIds', 'scheduledAt'];

function createView(c: Campaign) {
	return {
		id: c.id,
		name: c.name,
		status: c.status,
		totalRecipients: c.recipients.length,
		scheduledAt: iso(c.scheduledAt),
		createdAt: iso(c.createdAt),
	};
}

function listItem(c: Campaign) {
	return {
		id: c.id,
		name: c.name,
		status: c.status,
		totalRecipients: c.recipients.length,
		successfulDeliveries: c.successfulDeliveries,
		failedDeliveries: c.failedDeliveries,
		cost: c.cost,
		scheduledAt: iso(c.scheduledAt),
		sentAt: iso(c.sentAt),
		createdAt: iso(c.createdAt),
	};
}

export function campaignView(c: Campaign) {
	return {
		id: c.id,
		name: c.name,
		message: c.message,
		senderId: c.senderId,
		status: c.status,
		totalRecipients: c.recipients.length,
		manualNumbers: [...c.manualNumbers],
		contactGroupIds: [...c.contactGroupIds],
		scheduledAt: iso(c.scheduledAt),
		createdAt: iso(c.createdAt),
		updatedAt: iso(c.updatedAt),
		sentAt: iso(c.sentAt),
		completedAt: iso(c.completedAt),
		successfulDeliveries: c.successfulDeliveries,
		failedDeliveries: c.failedDeliveries,
		cost: c.cost,
	};
}

interface Draft {
	name: string;
	message: string;
	senderId: string;
	manualNumbers: string[];
	contactGroupIds: number[];
	recipients: string[];
	scheduledAt: number | null;
}

/** Formats and deduplicates the numbers, resolves groups, and checks message and sender for every recipient. */
function checkDraft(
	account: Account,
	input: Omit<Draft, 'recipients'>,
): Draft {
	if (input.manualNumbers.length === 0 && input.contactGroupIds.length === 0) {
		throw badRequest('At least one of manualNumbers or contactGroupIds is required');
	}
	const manualNumbers = input.manualNumbers.map((raw) => {
		const formatted = formatCampaignNumber(raw);
		if (!formatted) throw invalidPhone(raw);
		return formatted;
	});
	const members = input.contactGroupIds.flatMap((id) => {
		const group = account.contactGroups.get(id);
		if (!group) throw unprocessable('INVALID_CONTACT_GROUP', `Contact group ${id} does not exist`);
		return group.map(formatCampaignNumber).filter((n): n is string => n !== null);
	});
	const recipients = [...new Set([...manualNumbers, ...members])];
	const problem = tooLong(input.message) ?? senderFormatError(input.senderId);
	if (problem) throw problem;
	if (!account.senderIds.some((s) => s.senderId === input.senderId && s.status === 'ACTIVE')) {
		throw unprocessable('INVALID_SENDER_ID', `Sender ID '${input.senderId}' is not an approved sender ID of this account`);
	}
	if (recipients.length === 0) throw unprocessable('EMPTY_RECIPIENTS', 'The campaign has no recipients');
	for (const number of recipients) {
		const error = senderCountryError(account, input.senderId, smsCountry(number) as string);
		if (error) throw unprocessable(error.code, `${error.message} (recipient ${number})`);
	}
	return { ...input, manualNumbers: [...new Set(manualNumbers)], recipients };
}

function statusError(c: Campaign, allowed: CampaignStatus[]): ApiError {
	return new ApiError(
		409,
		'INVALID_CAMPAIGN_STATUS',
		`Campaign ${c.id} is ${c.status}; this action is allowed only when the status is ${allowed.join(', ')}`,
	);
}

function find(ctx: Ctx): Campaign {
	const id = /^\d+$/.test(ctx.params.id) ? Number(ctx.params.id) : NaN;
	const c = ctx.rt.state.campaigns.get(id);
	if (!c || c.accountId !== accountOf(ctx).id) throw notFound(`Campaign '${ctx.params.id}' not found`);
	return c;
}

/** Charges the account (402 when too low, nothing charged) and creates the messages. */
function startSending(rt: Runtime, c: Campaign, at: number): void {
	const account = rt.state.accounts.get(c.accountId) as Account;
	const cost = creditsFor(segmentInfo(c.message).segments) * c.recipients.length;
	charge(account, cost, at);
	c.status = 'SENDING';
	c.sentAt = at;
	c.updatedAt = at;
	c.cost = cost;
	c.scheduleSeq++;
	c.messageIds = c.recipients.map(
		(phoneNumber) =>
			acceptMessage(rt, { accountId: c.accountId, phoneNumber, message: c.message, senderId: c.senderId, campaignId: c.id }, at)
				.messageId,
	);
}

/** SCHEDULED campaigns send at scheduledAt; too few credits then makes them FAILED. */
function scheduleAutoSend(rt: Runtime, c: Campaign): void {
	const seq = ++c.scheduleSeq;
	const epoch = rt.state.epoch;
	rt.clock.schedule(c.scheduledAt as number, (at) => {
		if (rt.state.epoch !== epoch || rt.state.campaigns.get(c.id) !== c) return;
		if (c.status !== 'SCHEDULED' || c.scheduleSeq !== seq) return;
		try {
			startSending(rt, c, at);
		} catch (error) {
			if (!(error instanceof ApiError)) throw error;
			c.status = 'FAILED';
			c.failureReason = `${error.code}: ${error.message}`;
			c.updatedAt = at;
		}
	});
}

/** Counts deliveries as messages finish; COMPLETED when all are final. */
export function onCampaignMessageFinal(rt: Runtime, message: SmsMessage, at: number): void {
	const c = message.campaignId === null ? undefined : rt.state.campaigns.get(message.campaignId);
	if (!c || c.status !== 'SENDING') return;
	const messages = c.messageIds.map((id) => rt.state.messages.get(id)).filter((m): m is SmsMessage => !!m);
	c.successfulDeliveries = messages.filter((m) => m.status === 'DELIVERED').length;
	c.failedDeliveries = messages.filter((m) => m.status === 'FAILED' || m.status === 'EXPIRED').length;
	c.updatedAt = at;
	if (messages.every(isFinal)) {
		c.status = 'COMPLETED';
		c.completedAt = at;
	}
}

function create(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const body = objectBody(ctx.body);
	const draft = checkDraft(account, {
		name: reqString(body, 'name'),
		message: reqString(body, 'message'),
		senderId: reqString(body, 'senderId'),
		manualNumbers: optStringArray(body, 'manualNumbers') ?? [],
		contactGroupIds: optIntArray(body, 'contactGroupIds') ?? [],
		scheduledAt: optFutureDateTime(body, 'scheduledAt', ctx.now) ?? null,
	});
	const state = ctx.rt.state;
	const c: Campaign = {
		id: state.nextCampaignId++,
		accountId: account.id,
		...draft,
		status: draft.scheduledAt === null ? 'DRAFT' : 'SCHEDULED',
		createdAt: ctx.now,
		updatedAt: ctx.now,
		sentAt: null,
		completedAt: null,
		successfulDeliveries: 0,
		failedDeliveries: 0,
		cost: 0,
		messageIds: [],
		failureReason: null,
		scheduleSeq: 0,
	};
	state.campaigns.set(c.id, c);
	if (c.status === 'SCHEDULED') scheduleAutoSend(ctx.rt, c);
	return bare(createView(c), 201);
}

function list(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const page = intQuery(ctx.query, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
	const limit = intQuery(ctx.query, 'limit', CAMPAIGN_PAGE.defaultLimit, 1, CAMPAIGN_PAGE.maxLimit);
	const mine = [...ctx.rt.state.campaigns.values()]
		.filter((c) => c.accountId === account.id)
		.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
	const result = paginate(mine, page, limit);
	return bare({ ...result, data: result.data.map(listItem) });
}

function update(ctx: Ctx): Reply {
	const account = accountOf(ctx);
	const c = find(ctx);
	const body = objectBody(ctx.body);
	if (!EDITABLE.includes(c.status)) throw statusError(c, EDITABLE);
	if (!PATCH_FIELDS.some((f) => body[f] !== undefined)) {
		throw badRequest(`Body must carry at least one of ${PATCH_FIELDS.join(', ')}`);
	}
	const has = (field: string) => body[field] !== undefined;
	const str = (field: 'name' | 'message' | 'senderId') => (has(field) ? reqString(body, field) : c[field]);
	const draft = checkDraft(account, {
		name: str('name'),
		message: str('message'),
		senderId: str('senderId'),
		manualNumbers: has('manualNumbers') ? optStringArray(body, 'manualNumbers') ?? [] : c.manualNumbers,
		contactGroupIds: has('contactGroupIds') ? optIntArray(body, 'contactGroupIds') ?? [] : c.contactGroupIds,
		scheduledAt: patchedSchedule(body, c, ctx.now),
	});
	Object.assign(c, draft, { status: draft.scheduledAt === null ? 'DRAFT' : 'SCHEDULED', updatedAt: ctx.now });
	if (c.status === 'SCHEDULED') scheduleAutoSend(ctx.rt, c);
	else c.scheduleSeq++;
	return bare(campaignView(c));
}

function patchedSchedule(body: Obj, c: Campaign, now: number): number | null {
	if (body.scheduledAt === undefined) return c.scheduledAt;
	if (body.scheduledAt === null) return null;
	return optFutureDateTime(body, 'scheduledAt', now) as number;
}

function remove(ctx: Ctx): Reply {
	const c = find(ctx);
	if (!DELETABLE.includes(c.status)) throw statusError(c, DELETABLE);
	c.scheduleSeq++;
	ctx.rt.state.campaigns.delete(c.id);
	return bare({ id: c.id, deleted: true });
}

function send(ctx: Ctx): Reply {
	const c = find(ctx);
	if (!EDITABLE.includes(c.status)) throw statusError(c, EDITABLE);
	startSending(ctx.rt, c, ctx.now);
	return bare(campaignView(c));
}

function cancel(ctx: Ctx): Reply {
	const c = find(ctx);
	if (!EDITABLE.includes(c.status)) throw statusError(c, EDITABLE);
	c.status = 'CANCELLED';
	c.updatedAt = ctx.now;
	c.scheduleSeq++;
	return bare(campaignView(c));
}

export const campaignRoutes: Route[] = [
	route('POST', '/api/sms/campaigns', 'bearer', create),
	route('GET', '/api/sms/campaigns', 'bearer', list),
	route('GET', '/api/sms/campaigns/:id', 'bearer', (ctx) => bare(campaignView(find(ctx)))),
	route('PATCH', '/api/sms/campaigns/:id', 'bearer', update),
	route('DELETE', '/api/sms/campaigns/:id', 'bearer', remove),
	route('POST', '/api/sms/campaigns/:id/send', 'bearer', send),
	route('POST', '/api/sms/campaigns/:id/cancel', 'bearer', cancel),
];
