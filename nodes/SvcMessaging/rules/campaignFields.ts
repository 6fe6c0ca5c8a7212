import type { IDataObject, INode } from 'n8n-workflow';

import { INPUT_LIMITS, SMS_LIMITS } from '../transport/service';
import { withValue } from './errorText';
import { checkField, failItem } from './fields';
import { normalizePhoneNumber, type NumberCheck } from './phone';
import { textField } from './schemas';
import { senderIdSchema } from './smsFields';

/** Campaign fields: name, message, sender ID, campaign ID, number and contact group lists. */

export function checkSenderId(node: INode, senderId: string, i: number, required = false): string {
	if (required && senderId === '') failItem(node, i, '"Sender ID" must not be empty: campaigns need an approved sender ID');
	const result = senderIdSchema.safeParse(senderId);
	if (!result.success) failItem(node, i, `"Sender ID" ${result.error.issues[0].message} (got "${senderId}")`);
	return senderId;
}

const MESSAGE = textField({ visible: true, max: SMS_LIMITS.maxMessageCharacters });
const NAME = textField({ visible: true, max: INPUT_LIMITS.maxCampaignNameCharacters });

export function checkMessage(node: INode, message: unknown, i: number): string {
	return checkField(node, MESSAGE, message, i, 'Message');
}

export function checkName(node: INode, name: unknown, i: number): string {
	return checkField(node, NAME, name, i, 'Name');
}

/** A campaign ID: a whole number greater than 0, of a bounded length. */
export function checkCampaignId(node: INode, raw: unknown, i: number): string {
	const id = raw === undefined || raw === null ? '' : typeof raw === 'object' ? '[an object]' : String(raw).trim();
	if (id === '') failItem(node, i, '"Campaign" must not be empty: pick one from the list or enter its ID');
	if (!/^\d+$/.test(id) || Number(id) < 1 || id.length > INPUT_LIMITS.maxCampaignIdDigits) {
		failItem(node, i, `"Campaign" must be a campaign ID (a whole number greater than 0), got "${id.slice(0, 40)}"`);
	}
	return id;
}

/** A list parameter: an array (from an expression), a JSON array, or text separated by commas, semicolons or new lines. */
export function listOf(value: unknown): unknown[] {
	if (value === undefined || value === null || value === '') return [];
	if (Array.isArray(value)) return value;
	if (typeof value === 'number') return [value];
	if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('[')) {
			try {
				const parsed = JSON.parse(text) as unknown;
				if (Array.isArray(parsed)) return parsed;
			} catch {
				// not JSON: read as separated text
			}
		}
		return text
			.split(/[\n,;]+/)
			.map((part) => part.trim())
			.filter((part) => part !== '');
	}
	return [value];
}

export interface NumberOptions {
	defaultCountry?: string;
	numberCheck?: NumberCheck;
}

/** Normalises a list of numbers to E.164 (as SMS Send does); the error names the entry. */
export function normalizeNumbers(
	node: INode,
	value: unknown,
	options: NumberOptions,
	i: number,
	label = 'Phone Numbers',
): string[] {
	return listOf(value).map((entry, position) => {
		const result = normalizePhoneNumber(entry, options.defaultCountry || undefined, options.numberCheck ?? 'mobile');
		if (!result.ok) failItem(node, i, `"${label}" entry ${position + 1} ${withValue(result.rule, entry)}`);
		return result.e164;
	});
}

export function contactGroupIdsOf(node: INode, value: unknown, i: number): number[] {
	return listOf(value).map((entry, position) => {
		const text = typeof entry === 'string' || typeof entry === 'number' ? String(entry).trim() : '';
		if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
			failItem(
				node,
				i,
				`"Contact Group IDs" entry ${position + 1} must be a whole number greater than 0 (got ${JSON.stringify(entry)?.slice(0, 30)})`,
			);
		}
		return Number(text);
	});
}

/** A campaign needs recipients: numbers, contact groups, or both. */
export function checkHasRecipients(node: INode, i: number, numbers: unknown[] | undefined, groups: unknown[] | undefined, onlyGroups: boolean): void {
	if ((numbers?.length ?? 0) > 0 || (groups?.length ?? 0) > 0) return;
	failItem(
		node,
		i,
		onlyGroups
			? '"Contact Group IDs" must not be empty: the campaign has no recipients'
			: 'the campaign has no recipients: fill in "Phone Numbers" or "Contact Group IDs" (at least one of the two)',
	);
}

/** Update: the fields given must make sense together, and there must be something to update. */
export function checkCampaignUpdate(node: INode, i: number, body: IDataObject, removeSchedule: boolean, scheduledAt: string | undefined): void {
	if (Array.isArray(body.manualNumbers) && body.manualNumbers.length === 0 && Array.isArray(body.contactGroupIds) && body.contactGroupIds.length === 0) {
		failItem(node, i, '"Phone Numbers" and "Contact Group IDs" are both empty: a campaign needs at least one of the two');
	}
	if (removeSchedule && scheduledAt) failItem(node, i, '"Remove Schedule" and "Scheduled Time" cannot be used together: choose one');
}

export function checkSomethingToUpdate(node: INode, i: number, body: IDataObject): void {
	if (Object.keys(body).length === 0) failItem(node, i, 'nothing to update: set "Sender ID" or add a field under "Update Fields"');
}
