import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { INVALID_INPUT, withErrorCode } from '../transport/errors';
import { itemPrefix, withValue } from './errorText';

/** What the field rules need of a zod schema: it reads any raw parameter value. */
export interface Schema<T> {
	safeParse(value: unknown): z.SafeParseReturnType<unknown, T>;
}

/** The value at `path` inside `value` (a parameter object), for quoting it. */
function valueAt(value: unknown, path: Array<string | number>): unknown {
	let current = value;
	for (const key of path) current = current && typeof current === 'object' ? (current as Record<string | number, unknown>)[key] : undefined;
	return current;
}

/**
 * Parses one item's parameters; a failure names the field (by its label in the form), the item,
 * the value and the rule, and nothing is sent for that item.
 */
export function parseItem<T>(
	node: INode,
	schema: Schema<T>,
	value: unknown,
	itemIndex: number,
	labels: Record<string, string>,
): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const problems = result.error.issues.map((issue) => {
		const key = issue.path.map(String).join('.');
		const label = labels[key] ?? labels[String(issue.path[0])] ?? (key || 'value');
		return `"${label}" ${withValue(issue.message, valueAt(value, issue.path))}`;
	});
	return failItem(node, itemIndex, problems[0], problems.slice(1).join('; ') || undefined);
}

/** One field of item `i` through its schema: the parsed value, or `Item N: "Label" rule`. */
export function checkField<T>(node: INode, schema: Schema<T>, value: unknown, itemIndex: number, label: string): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	return failItem(node, itemIndex, `"${label}" ${withValue(result.error.issues[0].message, value)}`);
}

/** "Limit" of a list operation: a whole number of 1 or more (a fraction is rounded down). */
export function checkLimit(node: INode, value: unknown, itemIndex: number): number {
	const limit = Math.floor(Number(value));
	if (!(limit >= 1)) failItem(node, itemIndex, '"Limit" must be a whole number of 1 or more');
	return limit;
}

/**
 * "Max Messages per Execution" of a tool: a whole number; only an explicit 0 turns the cap off.
 * Anything else (-1, "ten", empty, 2.5) is refused rather than read as "no limit": a model can set
 * parameters, and a cap must fail closed.
 */
export function checkMessageCap(node: INode, value: unknown): number {
	const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (!/^\d+$/.test(text)) {
		failItem(node, 0, `"Max Messages per Execution" must be a whole number: 0 for no limit, or the most messages one execution may send (got ${JSON.stringify(value) ?? String(value)})`);
	}
	return Number(text);
}

/**
 * Refuses an item's input before anything is sent: `Item N: "Field" rule`, code INVALID_INPUT. The
 * description holds the item's other problems (`more`) or what to do (`fix`).
 */
export function failItem(node: INode, itemIndex: number, problem: string, more?: string, fix?: string): never {
	const description = [more ? `Also: ${more}` : '', fix ?? ''].filter(Boolean).join('\n');
	const error = new NodeOperationError(node, `${itemPrefix(itemIndex)}${problem}`, {
		itemIndex,
		description: description || undefined,
	});
	throw withErrorCode(error, INVALID_INPUT);
}
