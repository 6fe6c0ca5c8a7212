import { z } from 'zod';

import { TRIGGER_LIMITS } from './limits';
import { DELIVERY_EVENTS, isDeliveryEvent } from './events';

/**
 * The delivery-report body of the spec (Events):
 * `{ event, timestamp, data: { messageId, batchId, phoneNumber, status, senderId, reference,
 * deliveredAt, creditsUsed } }`, plus `data.reason { code, message }` for `message.failed`.
 * messageId, phoneNumber and status identify the report and are required; the other data fields
 * are not always meaningful (no batch for a single send, no deliveredAt before delivery) and may be
 * absent or null. A message ID longer than TRIGGER_LIMITS.maxMessageIdCharacters is refused: the
 * service's IDs are short, and each one is kept by the duplicate ledger.
 */
const isoDateTime = z.string().datetime({ offset: true });
const optionalText = z.string().nullish();

const reportData = z.object({
	messageId: z.string().min(1).max(TRIGGER_LIMITS.maxMessageIdCharacters),
	batchId: optionalText,
	phoneNumber: z.string().min(1),
	status: z.string().min(1),
	senderId: optionalText,
	reference: optionalText,
	deliveredAt: isoDateTime.nullish(),
	creditsUsed: z.number().nonnegative().nullish(),
});

const failureReason = z.object({
	code: z.string().min(1),
	message: z.string(),
});

const otherEvents = DELIVERY_EVENTS.filter((event) => event !== 'message.failed') as [
	'message.pending',
	'message.sent',
	'message.delivered',
	'message.expired',
];

export const deliveryReportSchema = z.discriminatedUnion('event', [
	z.object({ event: z.enum(otherEvents), timestamp: isoDateTime, data: reportData }),
	z.object({
		event: z.literal('message.failed'),
		timestamp: isoDateTime,
		data: reportData.extend({ reason: failureReason }),
	}),
]);

export type DeliveryReport = z.infer<typeof deliveryReportSchema>;

export type ParsedBody =
	/** A documented event whose body passed the schema. */
	| { kind: 'report'; report: DeliveryReport; raw: Record<string, unknown> }
	/** A well-formed body with an event name the spec does not document: acknowledged, ignored. */
	| { kind: 'unknownEvent'; event: string }
	| { kind: 'invalid'; message: string };

function describeIssues(error: z.ZodError): string {
	return error.issues
		.slice(0, 5)
		.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
		.join('; ');
}

/** Parses and validates the raw bytes of a delivery-report request. Never throws. */
export function parseDeliveryReport(rawBody: Buffer): ParsedBody {
	let body: unknown;
	try {
		body = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return { kind: 'invalid', message: 'The body is not valid JSON' };
	}
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return { kind: 'invalid', message: 'The body is not a JSON object' };
	}
	const event = (body as { event?: unknown }).event;
	if (typeof event === 'string' && event !== '' && !isDeliveryEvent(event)) {
		return { kind: 'unknownEvent', event };
	}
	const result = deliveryReportSchema.safeParse(body);
	if (!result.success) {
		return { kind: 'invalid', message: `The body does not match the delivery-report schema: ${describeIssues(result.error)}` };
	}
	return { kind: 'report', report: result.data, raw: body as Record<string, unknown> };
}
