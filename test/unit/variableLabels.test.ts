/**
 * methods/variableLabels.ts: each field of the template variable mapper is labelled with the
 * template's text around its variable (text first: n8n 2 shows only the start of a long label).
 */
import { variableLabel } from '../../nodes/SvcMessaging/methods/variableLabels';

describe('template variable labels', () => {
	it('lead with the variable, then the text on both sides of its place, ___ (20 characters, whole words, cuts marked)', () => {
		const body = 'Hello {{1}}, your order {{2}} has shipped and will arrive at your door on {{3}}. Reply STOP to opt out.';
		expect(variableLabel('Body', 1, body)).toBe('Body {{1}}: Hello ___, your order {{2}}…');
		expect(variableLabel('Body', 2, body)).toBe('Body {{2}}: …{{1}}, your order ___ has shipped and…');
		expect(variableLabel('Body', 3, body)).toBe('Body {{3}}: …at your door on ___. Reply STOP to opt…');
	});

	it('reads `{{ 1 }}` as {{1}}, flattens line breaks, and uses the first use of a repeated variable', () => {
		expect(variableLabel('Header', 1, 'Code for\n{{ 1 }}')).toBe('Header {{1}}: Code for ___');
		expect(variableLabel('Body', 1, 'Your code is {{1}}. Again: {{1}}')).toBe('Body {{1}}: Your code is ___. Again: {{1}}');
	});

	it('does not split an emoji or other surrogate pair at a cut', () => {
		const label = variableLabel('Body', 1, `${'😀'.repeat(40)}{{1}}`);
		expect(label).toBe(`Body {{1}}: …${'😀'.repeat(20)}___`);
		expect(label).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
	});

	it('falls back to the bare name when the text has no words around the variable, or not the variable', () => {
		expect(variableLabel('Body', 1, '{{1}}')).toBe('Body {{1}}');
		expect(variableLabel('Body', 2, 'Only {{1}}')).toBe('Body {{2}}');
		expect(variableLabel('Body', 1, undefined)).toBe('Body {{1}}');
	});
});
