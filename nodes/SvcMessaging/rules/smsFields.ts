import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { z } from 'zod';

import { INPUT_LIMITS, SMS_LIMITS } from '../transport/service';
import { readDateTime } from './dateTime';
import { withValue } from './errorText';
import { failItem } from './fields';
import { privateHostProblem } from './privateAddress';
import { characters, hasVisibleCharacter, loneSurrogateAt, textField, urlField, variableValue } from './schemas';
import { PLACEHOLDER } from './segments';

/**
 * The fields of an SMS (Send, Send and Wait, Send Bulk, campaigns): each schema carries its rule
 * text, which errors show as `Item N: "Field" rule`.
 */
export const senderIdSchema = z
	.string()
	.regex(/^[A-Z0-9]{1,11}$/, 'must be 1–11 capital letters A–Z or digits 0–9, without spaces or symbols');

/**
 * Why the service could never post delivery reports to a URL's host, or undefined: loopback
 * (n8n's own local test URL is the usual case), private, link-local and metadata hosts.
 */
export function reportHostProblem(url: string): string | undefined {
	let host: string;
	try {
		host = new URL(url).hostname;
	} catch {
		return undefined;
	}
	const problem = privateHostProblem(host);
	return problem
		? `must be an address the service can reach from the internet: ${problem}, so the delivery reports would be lost. ` +
				"Set n8n's WEBHOOK_URL to n8n's public address and copy the trigger's Production URL again, " +
				'or turn on "Allow Private Delivery Report Hosts" if the service reaches this network'
		: undefined;
}

const reportUrl = (allowPrivateHosts: boolean) =>
	urlField.superRefine((url, ctx) => {
		const problem = allowPrivateHosts ? undefined : reportHostProblem(url);
		if (problem) ctx.addIssue({ code: 'custom', message: problem });
	});

const smsSchemaOf = (allowPrivateReportHosts: boolean) =>
	z.object({
		message: textField({ max: SMS_LIMITS.maxMessageCharacters, visible: true }),
		senderId: senderIdSchema.optional(),
		reference: textField({ max: INPUT_LIMITS.maxReferenceCharacters }).optional(),
		webhookUrl: reportUrl(allowPrivateReportHosts).optional(),
	});

/** The fields of one SMS; a Delivery Report URL must have a public host. */
export const smsSchema = smsSchemaOf(false);
/** The same, with "Allow Private Delivery Report Hosts". */
export const smsSchemaAllowingPrivateReportHosts = smsSchemaOf(true);

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
	const read = readDateTime(value, ctx.getTimezone());
	if ('problem' in read) failItem(ctx.getNode(), i, `"${SMS_LABELS.scheduledAt}" ${withValue(read.problem, value)}`);
	const { iso } = read;
	if (Date.parse(iso) <= Date.now()) {
		failItem(ctx.getNode(), i, `"${SMS_LABELS.scheduledAt}" must be in the future (got ${iso})`);
	}
	return iso;
}

/**
 * Send Bulk: every placeholder of the message needs a value for this recipient, and a value is
 * text or a finite number (NaN, Infinity, true, null or an object would be sent as "NaN", "true",
 * …). Returns the placeholders' values as the text that is sent.
 */
export function checkPlaceholderValues(
	node: INode,
	i: number,
	where: string,
	placeholders: string[],
	variables: Record<string, unknown> | undefined,
): Record<string, string> {
	const missing = placeholders.filter((name) => variables?.[name] === undefined);
	if (missing.length) {
		failItem(node, i, `${where}no value for the placeholder(s) ${missing.map((m) => `{{${m}}}`).join(', ')} of "Message"`);
	}
	const values: Record<string, string> = {};
	for (const name of placeholders) {
		const value = variables![name];
		if (typeof value === 'string' && loneSurrogateAt(value) === undefined) {
			values[name] = value;
			continue;
		}
		const result = variableValue.safeParse(value);
		if (!result.success) failItem(node, i, `${where}the value of placeholder {{${name}}} ${withValue(result.error.issues[0].message, value)}`);
		values[name] = result.data;
	}
	return values;
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
