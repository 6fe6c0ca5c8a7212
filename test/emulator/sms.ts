/** POST /api/sms/send-api (single and bulk) and POST /api/sms/send (single). */
import { DEFAULT_SENDER_ID } from './assumptions';
import { ApiError, badRequest, codePoints, newId, ok, unprocessable, type Reply } from './http';
import { acceptMessage } from './lifecycle';
import { charge, creditsFor, invalidPhone, segmentInfo, senderCountryError, senderFormatError, smsCountry, substitute, tooLong } from './rules';
import { accountOf, route, type Ctx, type Route } from './router';
import type { ApiKeyRecord } from './state';
import { isObject, objectBody, optFutureDateTime, optHttpUrl, optString, reqString, type Obj } from './validate';

function commonFields(body: Obj, ctx: Ctx) {
	return {
		message: reqString(body, 'message'),
		senderId: optString(body, 'senderId') ?? DEFAULT_SENDER_ID,
		reference: optString(body, 'reference') ?? null,
		scheduledAt: optFutureDateTime(body, 'scheduledAt', ctx.now) ?? null,
	};
}

function sendSingle(ctx: Ctx, body: Obj): Reply {
	const account = accountOf(ctx);
	const phoneNumber = reqString(body, 'phoneNumber');
	const { message, senderId, reference, scheduledAt } = commonFields(body, ctx);
	const webhookUrl = optHttpUrl(body, 'webhookUrl') ?? null;
	const country = smsCountry(phoneNumber);
	if (!country) throw invalidPhone(phoneNumber);
	const problem = tooLong(message) ?? senderFormatError(senderId) ?? senderCountryError(account, senderId, country);
	if (problem) throw problem;
	const { segments } = segmentInfo(message);
	charge(account, creditsFor(segments), ctx.now);
	const sms = acceptMessage(
		ctx.rt,
		{ accountId: account.id, phoneNumber, message, senderId, reference, webhookUrl, scheduledAt },
		ctx.now,
	);
	return ok(
		{
			messageId: sms.messageId,
			status: sms.status,
			phoneNumber: sms.phoneNumber,
			senderId: sms.senderId,
			messageLength: codePoints(message),
			segments: sms.segments,
			creditsUsed: sms.creditsUsed,
			creditsRemaining: account.credits,
		},
		202,
	);
}

interface Recipient {
	phoneNumber: string;
	variables?: Record<string, string>;
}

function parseRecipients(raw: unknown[]): Recipient[] {
	return raw.map((item, i) => {
		if (!isObject(item)) throw badRequest(`recipients[${i}] must be an object`);
		const phoneNumber = reqString(item, 'phoneNumber', `recipients[${i}].phoneNumber`);
		const vars = item.variables;
		if (vars === undefined || vars === null) return { phoneNumber };
		if (!isObject(vars)) throw badRequest(`recipients[${i}].variables must be an object`);
		const variables: Record<string, string> = {};
		for (const [name, value] of Object.entries(vars)) {
			if (!['string', 'number', 'boolean'].includes(typeof value)) {
				throw badRequest(`recipients[${i}].variables.${name} must be a string, number or boolean`);
			}
			variables[name] = String(value);
		}
		return { phoneNumber, variables };
	});
}

interface RecipientError {
	index: number;
	phoneNumber: string;
	error: { code: string; message: string };
}

function sendBulk(ctx: Ctx, body: Obj, apiKey: ApiKeyRecord): Reply {
	const account = accountOf(ctx);
	if (!Array.isArray(body.recipients)) throw badRequest('recipients must be an array');
	const { message, senderId, reference, scheduledAt } = commonFields(body, ctx);
	if (body.recipients.length === 0) throw unprocessable('EMPTY_RECIPIENTS', 'recipients must not be empty');
	if (body.recipients.length > apiKey.recipientsPerCall) {
		throw new ApiError(
			413,
			'PAYLOAD_TOO_LARGE',
			`${body.recipients.length} recipients exceed the limit of ${apiKey.recipientsPerCall} per call for this API key (${apiKey.tier} plan)`,
		);
	}
	const recipients = parseRecipients(body.recipients);
	const problem = tooLong(message) ?? senderFormatError(senderId);
	if (problem) throw problem;

	const errors: RecipientError[] = [];
	const accepted: Array<{ phoneNumber: string; text: string; segments: number }> = [];
	recipients.forEach((r, index) => {
		const country = smsCountry(r.phoneNumber);
		const text = substitute(message, r.variables);
		const error = !country
			? invalidPhone(r.phoneNumber)
			: tooLong(text) ?? senderCountryError(account, senderId, country);
		if (error) errors.push({ index, phoneNumber: r.phoneNumber, error: { code: error.code, message: error.message } });
		else accepted.push({ phoneNumber: r.phoneNumber, text, segments: segmentInfo(text).segments });
	});
	if (accepted.length === 0) {
		const codes = new Set(errors.map((e) => e.error.code));
		const code = codes.size === 1 ? errors[0].error.code : 'INVALID_PHONE_NUMBER';
		throw unprocessable(code, `No valid recipients: all ${errors.length} recipients were rejected (see details)`, errors);
	}

	const totalSegments = accepted.reduce((sum, a) => sum + a.segments, 0);
	const totalCredits = creditsFor(totalSegments);
	charge(account, totalCredits, ctx.now);
	const batchId = newId('batch');
	const messages = accepted.map((a) =>
		acceptMessage(
			ctx.rt,
			{ accountId: account.id, phoneNumber: a.phoneNumber, message: a.text, senderId, reference, batchId, scheduledAt },
			ctx.now,
		),
	);
	ctx.rt.state.batches.set(batchId, {
		batchId,
		accountId: account.id,
		reference,
		messageIds: messages.map((m) => m.messageId),
		createdAt: ctx.now,
	});
	const list = messages.map((m) => ({ messageId: m.messageId, phoneNumber: m.phoneNumber, status: m.status }));
	const totals = { totalSegments, totalCredits, creditsRemaining: account.credits };
	const data =
		errors.length === 0
			? { batchId, totalRecipients: recipients.length, ...totals, messages: list }
			: {
					batchId,
					totalRecipients: recipients.length,
					successful: accepted.length,
					failed: errors.length,
					errors,
					...totals,
					messages: list,
				};
	return ok(data, 202);
}

function sendApi(ctx: Ctx): Reply {
	const body = objectBody(ctx.body);
	const single = body.phoneNumber !== undefined;
	const bulk = body.recipients !== undefined;
	if (single && bulk) throw badRequest('Send either phoneNumber (single) or recipients (bulk), not both');
	if (!single && !bulk) throw badRequest('phoneNumber (single) or recipients (bulk) is required');
	return single ? sendSingle(ctx, body) : sendBulk(ctx, body, ctx.apiKey as ApiKeyRecord);
}

export const smsRoutes: Route[] = [
	route('POST', '/api/sms/send-api', 'apiKey', sendApi),
	route('POST', '/api/sms/send', 'apiKey', (ctx) => sendSingle(ctx, objectBody(ctx.body))),
];
