import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INVALID_INPUT, withErrorCode } from '../transport/errors';
import { itemPrefix } from './errorText';

/**
 * The service's placeholders ({{name}} in Send Bulk, {{1}} in templates) are written like n8n's
 * expressions, and n8n turns pasted text holding {{ }} into an expression: n8n then fills them
 * itself ("Hello {{name}}" → "Hello ", "Hi {{1}}" → "Hi 1") and the damaged text would be sent
 * or created. A part that is only a name or a number is a placeholder, not n8n code.
 */
const BARE = /^\s*([A-Za-z_][A-Za-z0-9_]*|\d+)\s*$/;

/**
 * How to keep placeholder `name` inside an expression: `{{ '{{' }}name}}` (n8n's engine splits an
 * expression at the first `}}`, so the plainer `{{ '{{name}}' }}` does not parse).
 */
const escaped = (name: string) => `{{ '{{' }}${name}}}`;

function keepPlaceholderHint(name: string): string {
	return `Set the field to Fixed and type or paste the text there (n8n turns pasted text holding {{ }} into an expression), or keep the expression and write ${escaped(name)} for each placeholder. Nothing was sent to the service.`;
}

/** What the fields holding placeholders say in the form; `example` is a placeholder's name. */
export function keepFixedHint(example: string): string {
	return `Keep this field Fixed: pasted text holding {{ }} turns it into an expression, and n8n would fill the placeholders itself (the node refuses that). In an expression, write ${escaped(example)}`;
}

/** The code parts of an expression, split as n8n splits them (`\}}` escapes a closing pair in code). */
function codeParts(expression: string): string[] {
	const parts: string[] = [];
	let index = 0;
	for (;;) {
		const open = expression.indexOf('{{', index);
		if (open < 0) return parts;
		let close = open + 2;
		for (;;) {
			close = expression.indexOf('}}', close);
			if (close < 0) return parts;
			if (expression[close - 1] !== '\\') break;
			close += 2;
		}
		parts.push(expression.slice(open + 2, close));
		index = close + 2;
	}
}

/**
 * The placeholders n8n would evaluate in a raw parameter value (as saved in the workflow: an
 * expression starts with "="), in order of first use, written `{{name}}`; also inside
 * collections and lists (template buttons).
 */
export function evaluatedPlaceholders(raw: unknown, found: string[] = []): string[] {
	if (typeof raw === 'string') {
		if (!raw.startsWith('=')) return found;
		for (const part of codeParts(raw)) {
			const match = BARE.exec(part);
			const placeholder = match && `{{${match[1]}}}`;
			if (placeholder && !found.includes(placeholder)) found.push(placeholder);
		}
	} else if (Array.isArray(raw)) {
		for (const value of raw) evaluatedPlaceholders(value, found);
	} else if (raw && typeof raw === 'object') {
		for (const value of Object.values(raw)) evaluatedPlaceholders(value, found);
	}
	return found;
}

/**
 * Refuses item `itemIndex` when a field's raw value is an expression holding service placeholders:
 * `Item N: "Field" is an expression, so n8n would evaluate {{name}} itself …`, the fix in the description.
 */
export function checkPlaceholdersKept(node: INode, itemIndex: number, raw: unknown, label: string): void {
	const placeholders = evaluatedPlaceholders(raw);
	if (placeholders.length === 0) return;
	const shown = placeholders.slice(0, 5).join(', ') + (placeholders.length > 5 ? ', …' : '');
	const error = new NodeOperationError(
		node,
		`${itemPrefix(itemIndex)}"${label}" is an expression, so n8n would evaluate ${shown} itself and the service would never get ${placeholders.length > 1 ? 'these placeholders' : 'this placeholder'}`,
		{ itemIndex, description: keepPlaceholderHint(placeholders[0].slice(2, -2)) },
	);
	throw withErrorCode(error, INVALID_INPUT);
}
