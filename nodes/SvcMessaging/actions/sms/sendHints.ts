import type { IExecuteFunctions } from 'n8n-workflow';

import { unicodeCostNote } from '../../rules/segments';

const BULK_HINT_THRESHOLD = 20;

/** Things users get wrong with Send, shown under the node's output. */
export function addSendHints(ctx: IExecuteFunctions, messages: string[], replacing: boolean, suggestBulk: boolean) {
	const unicode = unicodeCostNote(messages, replacing);
	if (unicode) ctx.addExecutionHints({ message: unicode, location: 'outputPane' });
	if (suggestBulk && messages.length >= BULK_HINT_THRESHOLD && new Set(messages).size === 1) {
		ctx.addExecutionHints({
			message: `All ${messages.length} items got the same message: "Send Bulk" sends it to up to the plan's recipients per call in one request, which is much faster.`,
			location: 'outputPane',
		});
	}
	if (messages.some((m) => /\{\{[A-Za-z0-9_]+\}\}/.test(m))) {
		ctx.addExecutionHints({
			message: 'The message contains {{placeholders}}, which the service fills only in "Send Bulk". In Send, use an n8n expression instead.',
			location: 'outputPane',
		});
	}
}
