import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { z } from 'zod';

import { INPUT_LIMITS, SMS_LIMITS } from '../transport/service';
import { toUtcIso } from './dateTime';
import { failItem } from './fields';
import { characters, hasVisibleCharacter, textField } from './schemas';
import { PLACEHOLDER } from './segments';

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


/** Send Bulk: every placeholder of the message needs a value for this recipient. */
export function checkPlaceholderValues(node: INode, i: number, where: string, placeholders: string[], variables: Record<string, unknown> | undefined): void {
	const missing = placeholders.filter((name) => variables?.[name] === undefined);
	if (missing.length) {
		failItem(node, i, `${where}no value for the placeholder(s) ${missing.map((m) => `{{${m}}}`).join(', ')} of "Message"`);
	}
}

/** Checks one recipient's values against the rules of an SMS for the text they make (filledMessageCheck). */
export type FilledMessageCheck = (node: INode, i: number, where: string, variables: Record<string, string>) => void;

/**
 * The text each recipient gets, its placeholders filled, holds the rules of an SMS too. Counted
 * from the message's fixed parts (once) and each value, without building every recipient's text.
 */
export function filledMessageCheck(message: string): FilledMessageCheck {
	const names: string[] = [];
	const fixed = message.replace(PLACEHOLDER, (_whole, name: string) => {
		names.push(name);
		return '';
	});
	const fixedCharacters = characters(fixed);
	const fixedVisible = hasVisibleCharacter(fixed);
	return (node, i, where, variables) => {
		let count = fixedCharacters;
		let visible = fixedVisible;
		for (const name of names) {
			const value = variables[name];
			// (A placeholder without a value stays as it is written.)
			const text = value === undefined ? `{{${name}}}` : String(value);
			count += characters(text);
			visible ||= hasVisibleCharacter(text);
		}
		if (count > SMS_LIMITS.maxMessageCharacters) {
			failItem(node, i, `${where}"Message" with its placeholders filled must be at most ${SMS_LIMITS.maxMessageCharacters} characters (it has ${count})`);
		}
		if (!visible) failItem(node, i, `${where}"Message" with its placeholders filled must contain a visible character`);
	};
}

/** Send Bulk's "Recipient List" of one item: an array, or a JSON array, with at least one entry. */
export function recipientList(node: INode, i: number, value: unknown): unknown[] {
	let list = value;
	if (typeof list === 'string') {
		try {
			list = JSON.parse(list);
		} catch {
			failItem(node, i, '"Recipient List" must be a JSON array');
		}
	}
	if (!Array.isArray(list)) failItem(node, i, '"Recipient List" must be an array');
	if (list.length === 0) failItem(node, i, '"Recipient List" must not be empty');
	return list;
}
