import type { INode } from 'n8n-workflow';
import { z } from 'zod';

import { checkField, failItem } from './fields';
import { textField } from './schemas';

/** Not in the spec: the package's own bounds on Options → Idempotency Key. */
export const IDEMPOTENCY_LIMITS = {
	/** a key is the user's name for one business event (e.g. order-1234-shipped), not a document */
	maxKeyCharacters: 500,
	defaultHours: 24,
	minHours: 1,
	/** the longest the shared Redis and n8n's database are asked to remember a key */
	maxHours: 72,
} as const;

const keySchema = textField({ max: IDEMPOTENCY_LIMITS.maxKeyCharacters, visible: true });

const HOURS_RULE = `must be a number of hours from ${IDEMPOTENCY_LIMITS.minHours} to ${IDEMPOTENCY_LIMITS.maxHours}`;

const hoursSchema = z
	.union([z.number(), z.string()], { errorMap: () => ({ message: HOURS_RULE }) })
	.transform(Number)
	.refine((n) => Number.isFinite(n) && n >= IDEMPOTENCY_LIMITS.minHours && n <= IDEMPOTENCY_LIMITS.maxHours, { message: HOURS_RULE });

/** Item `i`'s "Idempotency Key": text that shows, at most 500 characters (kept as typed: the key is the user's). */
export function checkIdempotencyKey(node: INode, value: unknown, itemIndex: number): string {
	if (typeof value === 'number') return String(value);
	const key = checkField(node, keySchema, value, itemIndex, 'Idempotency Key');
	// Left as typed, {{ … }} would make one key of every item: only the first would ever be sent.
	if (/\{\{.*\}\}/.test(key)) failItem(node, itemIndex, `"Idempotency Key" must be an expression (starting with =) when it holds {{ … }}: as fixed text it is the same key for every item (got ${JSON.stringify(key)})`);
	return key;
}

/** Item `i`'s "Remember Key For (Hours)": 1 to 72 (empty, as an expression that gives nothing: the default, 24). */
export function checkRememberHours(node: INode, value: unknown, itemIndex: number): number {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return IDEMPOTENCY_LIMITS.defaultHours;
	return checkField(node, hoursSchema, value, itemIndex, 'Remember Key For (Hours)');
}
