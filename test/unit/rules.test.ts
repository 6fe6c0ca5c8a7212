import { checkTemplateStructure, describeViolations } from '../../nodes/SvcMessaging/rules/templateRules';
import { normalizeLanguageCode, templateSlots, variableFieldIds } from '../../nodes/SvcMessaging/rules/templateText';
import { mediaLinkProblem } from '../../nodes/SvcMessaging/rules/chatMedia';
import { normalizePhoneNumber } from '../../nodes/SvcMessaging/rules/phone';
import { analyzeMessage, fillPlaceholders, placeholdersOf } from '../../nodes/SvcMessaging/rules/segments';
import { senderIdSchema, smsSchema } from '../../nodes/SvcMessaging/rules/smsFields';
import { toUtcIso } from '../../nodes/SvcMessaging/rules/dateTime';

describe('rules/: the field rules, without n8n or the service', () => {
	it('phone numbers: E.164 as it is, national numbers with a Default Country, a rule when neither', () => {
		expect(normalizePhoneNumber('+254712345678', undefined, 'mobile')).toMatchObject({ ok: true, e164: '+254712345678' });
		expect(normalizePhoneNumber('0712345678', 'KE', 'mobile')).toMatchObject({ ok: true, e164: '+254712345678' });
		const refused = normalizePhoneNumber('0712345678', undefined, 'mobile');
		expect(refused.ok).toBe(false);
		expect((refused as { rule: string }).rule).toMatch(/E\.164|country/i);
	});

	it('SMS fields carry their rule text', () => {
		expect(senderIdSchema.safeParse('MYSHOP2024X').success).toBe(true);
		expect(senderIdSchema.safeParse('my shop').error?.issues[0].message).toBe('must be 1–11 capital letters A–Z or digits 0–9, without spaces or symbols');
		expect(smsSchema.safeParse({ message: 'x'.repeat(1601) }).error?.issues[0].message).toBe('must be at most 1600 characters (it has 1601)');
		expect(smsSchema.safeParse({ message: '' }).error?.issues[0].message).toBe('must not be empty');
		expect(smsSchema.safeParse({ message: 'hi', reference: 'r'.repeat(101) }).error?.issues[0].message).toBe('must be at most 100 characters (it has 101)');
	});

	it('segments: 160 GSM-7 characters or 70 Unicode characters a credit', () => {
		expect(analyzeMessage('a'.repeat(160))).toMatchObject({ encoding: 'GSM-7', segments: 1, credits: 1 });
		expect(analyzeMessage('a'.repeat(161)).credits).toBe(2);
		expect(analyzeMessage('д'.repeat(70))).toMatchObject({ segments: 1 });
		expect(analyzeMessage('д'.repeat(71)).segments).toBe(2);
		expect(placeholdersOf('Hi {{name}}, {{code}}')).toEqual(['name', 'code']);
		expect(fillPlaceholders('Hi {{name}}', { name: 'Amina' })).toBe('Hi Amina');
	});

	it('times without a zone are read in the workflow timezone', () => {
		expect(toUtcIso('2030-01-01T10:00', 'Africa/Nairobi')).toBe('2030-01-01T07:00:00.000Z');
		expect(toUtcIso('2030-01-01T10:00:00Z', 'Africa/Nairobi')).toBe('2030-01-01T10:00:00.000Z');
		expect(toUtcIso('not a date', 'UTC')).toBeUndefined();
	});

	it('template structure: every violation names its component and rule', () => {
		const violations = checkTemplateStructure('MARKETING', [
			{ type: 'BODY', text: 'Hi {{1}} and {{3}}.' },
			{ type: 'BUTTONS', buttons: [{ type: 'OTP' }] },
		]);
		expect(violations.map((v) => v.rule).sort()).toEqual(['authentication-only-button', 'variable-sequence']);
		expect(describeViolations(violations)).toContain('BODY: variables must be numbered from {{1}} without gaps (missing {{2}})');
		expect(checkTemplateStructure('UTILITY', [{ type: 'BODY', text: 'Hi {{1}}.' }])).toEqual([]);
	});

	it('template text: variables a message must supply, and language codes', () => {
		const components = [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}.' },
			{ type: 'BODY', text: 'Hi {{1}} {{2}} {{2}}.' },
		];
		expect(templateSlots(components)).toEqual({ headerFormat: 'TEXT', headerVariables: 1, bodyVariables: 2 });
		expect(variableFieldIds(components)).toEqual({ header: ['header_1'], body: ['body_1', 'body_2'] });
		expect(normalizeLanguageCode('en-us')).toBe('en_US');
		expect(normalizeLanguageCode('english')).toBeUndefined();
	});

	it('media links: public HTTPS with an allowed file type', () => {
		expect(mediaLinkProblem('https://cdn.example.com/a.png', 'image')).toBeUndefined();
		expect(mediaLinkProblem('http://cdn.example.com/a.png', 'image')).toMatch(/HTTPS/);
		expect(mediaLinkProblem('https://cdn.example.com/a.exe', 'document')).toMatch(/got \.exe/);
	});
});
