import type { INode } from 'n8n-workflow';

import { checkPlaceholdersKept, evaluatedPlaceholders } from '../../nodes/SvcMessaging/rules/expressionPlaceholders';

const node = { name: 'SVC Messaging', type: 'n8n-nodes-svc-messaging.svcMessaging', typeVersion: 2, parameters: {} } as unknown as INode;

describe('rules/expressionPlaceholders: service placeholders n8n would evaluate', () => {
	it.each([
		['=Hello {{name}}, your order {{order}} has shipped', ['{{name}}', '{{order}}']],
		['=Hi {{1}}, your order {{2}} has shipped.', ['{{1}}', '{{2}}']],
		['=Hi {{ name }} and {{name}} again', ['{{name}}']],
		['={{ $json.greeting }} {{ first_name }}', ['{{first_name}}']],
		['=https://example.com/orders/{{1}}', ['{{1}}']],
		['=[{"type":"BODY","text":"Hi {{1}}"}]', ['{{1}}']],
	])('%j → %j', (raw, expected) => {
		expect(evaluatedPlaceholders(raw)).toEqual(expected);
	});

	it.each([
		['Hello {{name}} (a fixed field: the service fills it)'],
		['={{ $json.message }}'],
		["={{ $json.greeting }} {{ '{{' }}name}}"],
		['={{ $json.a + 1 }}'],
		['={{ "x".toUpperCase() }}'],
		['=plain text with no braces'],
		["={{ '{{name\\}}' }}"],
	])('%j → none', (raw) => {
		expect(evaluatedPlaceholders(raw)).toEqual([]);
	});

	it('looks inside collections and lists (template buttons)', () => {
		expect(evaluatedPlaceholders({ button: [{ type: 'URL', text: 'Go', url: '=https://x.example/{{1}}' }, { text: '=Hi {{2}}' }] })).toEqual(['{{1}}', '{{2}}']);
	});

	it('the refusal names the item, the field and the placeholders; the fix is its description', () => {
		let error: (Error & { description?: string; context?: Record<string, unknown> }) | undefined;
		try {
			checkPlaceholdersKept(node, 3, '=Hi {{name}}', 'Message');
		} catch (caught) {
			error = caught as typeof error;
		}
		expect(error?.message).toBe('Item 3: "Message" is an expression, so n8n would evaluate {{name}} itself and the service would never get this placeholder');
		expect(error?.description).toMatch(/Fixed.*\{\{ '\{\{' \}\}name\}\}/);
		expect(error?.context?.errorCode).toBe('INVALID_INPUT');
		expect(() => checkPlaceholdersKept(node, 0, 'Hi {{name}}', 'Message')).not.toThrow();
	});
});
