import type { IExecuteFunctions } from 'n8n-workflow';
import { z } from 'zod';

import { INPUT_LIMITS, SMS_LIMITS } from '../transport/service';
import { toUtcIso } from './dateTime';
import { failItem } from './fields';
import { textField } from './schemas';

/**
 * The fields of an SMS (Send, Send and Wait, Send Bulk, campaigns): each schema carries its rule
 * text, which errors show as `Item N: "Field" rule`.
 */
export const senderIdSchema = z
	.string()
	.regex(/^[A-Z0-9]{1,11}$/, 'must be 1–11 capital letters A–Z or digits 0–9, without spaces or symbols');

export const smsSchema = z.object({
	message: textField({ max: SMS_LIMITS.maxMessageCharacters, visible: true }),
	senderId: senderIdSchema.optional(),
	reference: textField({ max: INPUT_LIMITS.maxReferenceCharacters }).optional(),
	webhookUrl: z.string().url('must be a full URL').regex(/^https?:\/\//, 'must start with http:// or https://').optional(),
});

export const SMS_LABELS = {
	phoneNumber: 'Phone Number',
	message: 'Message',
	senderId: 'Sender ID',
	reference: 'Reference',
	webhookUrl: 'Delivery Report URL',
	scheduledAt: 'Scheduled Time',
};

export function futureTime(ctx: IExecuteFunctions, value: unknown, i: number): string | undefined {
	if (value === undefined || value === '' || value === null) return undefined;
	const iso = toUtcIso(value, ctx.getTimezone());
	if (!iso) failItem(ctx.getNode(), i, `"${SMS_LABELS.scheduledAt}" must be a date and time (ISO 8601)`);
	if (Date.parse(iso) <= Date.now()) {
		failItem(ctx.getNode(), i, `"${SMS_LABELS.scheduledAt}" must be in the future (got ${iso})`);
	}
	return iso;
}

