/** methods/variableLabels.ts: the template variable mapper's labels carry the text around each variable. */
import { variableLabel } from '../../nodes/SvcMessaging/methods/variableLabels';

describe('template variable labels', () => {
	it('show the text on both sides of the variable, whole words, cuts marked', () => {
		const body = 'Hello {{1}}, your order {{2}} has shipped and will arrive at your door on {{3}}. Reply STOP to opt out.';
		expect(variableLabel('Body', 1, body)).toBe('Body {{1}}: "Hello {{1}}, your order {{2}} has…"');
		expect(variableLabel('Body', 2, body)).toBe('Body {{2}}: "Hello {{1}}, your order {{2}} has shipped and will arrive…"');
		expect(variableLabel('Body', 3, body)).toBe('Body {{3}}: "…will arrive at your door on {{3}}. Reply STOP to opt out."');
	});

	it('reads `{{ 1 }}` as {{1}}, flattens line breaks, and uses the first use of a repeated variable', () => {
		expect(variableLabel('Header', 1, 'Code for\n{{ 1 }}')).toBe('Header {{1}}: "Code for {{1}}"');
		expect(variableLabel('Body', 1, 'Your code is {{1}}. Again: {{1}}')).toBe('Body {{1}}: "Your code is {{1}}. Again: {{1}}"');
	});

	it('does not split an emoji or other surrogate pair at a cut', () => {
		const label = variableLabel('Body', 1, `${'😀'.repeat(40)}{{1}}`);
		expect(label).toBe(`Body {{1}}: "…${'😀'.repeat(28)}{{1}}"`);
		expect(label).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
	});

	it('falls back to the bare name when the text does not have the variable', () => {
		expect(variableLabel('Body', 2, 'Only {{1}}')).toBe('Body {{2}}');
		expect(variableLabel('Body', 1, undefined)).toBe('Body {{1}}');
	});
});
