import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CATEGORY_OF_CODE, LIMITER_FAULT, NETWORK_ERROR, RETRYABLE, type ErrorCategory } from './errorCodes';
import { itemLead, titledErrors, TITLES, withRequest } from './errorTitles';

export * from './errorCodes';

/** What to do about each service error code, shown as the error's description. */
const HINTS: Record<string, string> = {
	UNAUTHORIZED:
		'Check the API key (or the email and password) in the credential, and that the key has not been revoked in the dashboard.',
	BAD_REQUEST: 'The service rejected the request body. Check the fields named in the message.',
	INSUFFICIENT_CREDITS:
		'The account balance is too low for this send. Top up credits in the dashboard, or turn on "Check Balance Before Sending" to stop before anything is sent.',
	PAYLOAD_TOO_LARGE:
		"More recipients than the plan allows per call. Check the Plan selected in the credential: the node splits bulk sends by the plan's recipients per call.",
	INVALID_PHONE_NUMBER: 'Use E.164: a plus sign, the country code and the number without its leading zero, e.g. +254712345678.',
	MESSAGE_TOO_LONG: 'An SMS can hold up to 1600 characters (10 segments of GSM-7 text).',
	INVALID_SENDER_ID:
		'Use a sender ID approved for the destination country: 1–11 letters A–Z and digits 0–9. "Sender ID → Get Many" lists the approved ones; numeric sender IDs are allowed in Kenya only, custom ones in Ghana only when pre-approved.',
	EMPTY_RECIPIENTS: 'The bulk send had no recipients.',
	CHAT_OPT_IN_REQUIRED: [
		'The recipient has not opted in to chat messages from your business.',
		'How they opt in: they agree to receive your chat messages (a checkbox on your website or sign-up form, a reply to an SMS asking them), or they message your chat number first.',
		'After the opt-in, start the conversation with an approved template (Type: Template).',
	].join('\n'),
	CHAT_NUMBER_NOT_REGISTERED:
		"The account's chat sender number is not registered with the chat platform. Finish the registration in the dashboard.",
	INVALID_MEDIA_URL:
		'The media link must be a public HTTPS URL of an allowed file type (image: JPEG, PNG, WEBP; document: PDF, DOC(X), XLS(X), PPT(X); video: MP4, 3GPP).',
	RATE_LIMIT_EXCEEDED:
		"The plan's request rate was exceeded even after waiting as the service asked. Check the Plan in the credential, or lower concurrent workflows on this key.",
	NOT_FOUND: 'Nothing with this identifier exists for this account.',
	INVALID_CAMPAIGN_STATUS: 'Only DRAFT or SCHEDULED campaigns can be updated, sent or cancelled.',
	TEMPLATE_ALREADY_EXISTS: 'Template names are unique. Choose another name, or delete the old template first.',
	INVALID_TEMPLATE: 'The template breaks a structure rule; the message names the component and the rule.',
	INVALID_CONTACT_GROUP: 'A contact group ID does not exist for this account.',
};


export interface ServiceErrorBody {
	code?: string;
	message?: string;
	statusCode?: number;
}

export function serviceError(
	node: INode,
	httpCode: number,
	body: unknown,
	context: { itemIndex?: number; what: string },
): NodeApiError {
	const detail = ((body as IDataObject | undefined)?.error ?? {}) as ServiceErrorBody;
	const code = detail.code ?? `HTTP_${httpCode}`;
	const serviceMessage = detail.message ?? `HTTP ${httpCode}`;
	const ambiguous = httpCode >= 500 && context.what.startsWith('POST');
	const hint = ambiguous
		? 'The service answered with a server error after receiving the request, so it may have processed it. The request was not repeated, to avoid sending a message twice: check the delivery reports or the message list before sending again.'
		: HINTS[code];
	const v2 = titledErrors(node);
	const error = new NodeApiError(node, { code, message: serviceMessage, statusCode: httpCode } as JsonObject, {
		message: v2
			? `${itemLead(context.itemIndex)}${TITLES[code] ?? 'The service refused the request'}`
			: `${context.what} failed: ${code} – ${serviceMessage}`,
		description: v2 ? withRequest(hint, `${context.what} → HTTP ${httpCode} ${code}`, serviceMessage) : (hint ?? undefined),
		httpCode: String(httpCode),
		itemIndex: context.itemIndex,
	});
	if (ambiguous) error.context.mayHaveBeenProcessed = true;
	// A summary of several items gives each its line with the service's words (rules/errorText.ts).
	if (v2) error.context.serviceMessage = serviceMessage;
	if (Array.isArray((detail as IDataObject).details)) error.context.details = (detail as IDataObject).details;
	return error;
}

/**
 * A request that got no HTTP answer. POSTs are never repeated here: the service may have acted.
 * The message names no system code (ECONNREFUSED, …): n8n replaces any error message containing
 * one with its own generic text, which would hide whether the message may have been sent.
 */
export function transportError(
	node: INode,
	context: { itemIndex?: number; what: string; mayHaveBeenProcessed: boolean },
): NodeApiError {
	const hint = context.mayHaveBeenProcessed
		? 'The connection broke after the request was sent, so the service may have accepted it. It was not repeated, to avoid a duplicate message: check the delivery reports or the message list before sending again.'
		: 'Nothing reached the service. Check the Base URL in the credential and the network or proxy settings of n8n.';
	const v2 = titledErrors(node);
	const error = new NodeApiError(node, { code: NETWORK_ERROR, message: NETWORK_ERROR } as JsonObject, {
		message: v2
			? `${itemLead(context.itemIndex)}${context.mayHaveBeenProcessed ? 'No answer from the service: the request may have been processed' : 'The service could not be reached'}`
			: context.mayHaveBeenProcessed
				? `${context.what} failed: no answer from the service (${NETWORK_ERROR})`
				: `${context.what} failed: the service could not be reached (${NETWORK_ERROR})`,
		description: v2 ? withRequest(hint, `${context.what} → ${NETWORK_ERROR}`) : hint,
		itemIndex: context.itemIndex,
	});
	if (context.mayHaveBeenProcessed) error.context.mayHaveBeenProcessed = true;
	return error;
}

/**
 * The key's rate limiter failed before the request left (made in request.ts, which alone knows
 * whether its request was handed to n8n's request helper): nothing reached the service, so the
 * message is not sent and a Retry sends it (no mayHaveBeenProcessed, so the ledger keeps no mark).
 */
export function limiterFault(node: INode, context: { itemIndex?: number; what: string }): NodeOperationError {
	const hint = 'Nothing reached the service: the message was not sent. Run the node again (or retry the execution) to send it.';
	const v2 = titledErrors(node);
	const error = new NodeOperationError(node, v2 ? `${itemLead(context.itemIndex)}Not sent: the rate limiter failed before the request left` : `${context.what} not sent: the rate limiter failed before the request left (${LIMITER_FAULT})`, {
		description: v2 ? withRequest(hint, `${context.what} → ${LIMITER_FAULT}`) : hint,
		itemIndex: context.itemIndex,
	});
	return withErrorCode(error, LIMITER_FAULT);
}

/** Whether the service may have acted on the failed request (so it must not be sent again). */
export function mayHaveBeenProcessed(error: { context?: { mayHaveBeenProcessed?: unknown } }): boolean {
	return error.context?.mayHaveBeenProcessed === true;
}

/** The service's error code (e.g. INSUFFICIENT_CREDITS) of an error thrown by apiRequest. */
export function serviceErrorCode(error: unknown): string | undefined {
	const code = (error as { errorResponse?: { code?: unknown } })?.errorResponse?.code;
	return typeof code === 'string' ? code : undefined;
}

/**
 * The code of one of this package's own errors, set where the error is made (`context.errorCode`),
 * so that callers decide on it and never on the message text.
 */
export function ownErrorCode(error: unknown): string | undefined {
	const code = (error as { context?: { errorCode?: unknown } })?.context?.errorCode;
	return typeof code === 'string' ? code : undefined;
}

/** Marks an error with its code (see ownErrorCode) and returns it. */
export function withErrorCode<E extends { context: Record<string, unknown> }>(error: E, code: string): E {
	error.context.errorCode = code;
	return error;
}


/** The code of any error of this package: its own (`context.errorCode`), else the service's. */
export function errorCodeOf(error: unknown): string | undefined {
	return ownErrorCode(error) ?? serviceErrorCode(error);
}

/**
 * The category of an error, from the codes set where it was made (never from its text). A request
 * the service may have processed (a 5xx or lost answer to a POST) is UNKNOWN_OUTCOME whatever its
 * code: calling again could send the message twice.
 */
export function errorCategory(error: unknown): { category: ErrorCategory; retryable: boolean } {
	if (mayHaveBeenProcessed(error as { context?: { mayHaveBeenProcessed?: unknown } })) return { category: 'UNKNOWN_OUTCOME', retryable: false };
	const code = errorCodeOf(error);
	const category: ErrorCategory = code === undefined ? 'UNEXPECTED' : (CATEGORY_OF_CODE[code] ?? (/^HTTP_5\d\d$/.test(code) ? 'SERVICE_UNAVAILABLE' : /^HTTP_4\d\d$/.test(code) ? 'INVALID_INPUT' : 'UNEXPECTED'));
	return { category, retryable: RETRYABLE.has(category) };
}

/** Any error of an item as the node error n8n shows, with the item's index. */
export function wrapError(ctx: Pick<IExecuteFunctions, 'getNode'>, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
