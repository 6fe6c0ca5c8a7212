import { readDateTime } from '../../nodes/SvcMessaging/rules/dateTime';
import { quoted, sendSummary, sharedErrorMessage, withValue } from '../../nodes/SvcMessaging/rules/errorText';
import { loneSurrogateAt } from '../../nodes/SvcMessaging/rules/schemas';
import { unknownOutcomeError } from '../../nodes/SvcMessaging/sending/recovery';

describe('rules/errorText: how refusals quote values and name items', () => {
	it('quotes text shortened to 40 characters, escapes control characters and lone surrogates, and never shows a link\'s query or user info', () => {
		expect(quoted('0712 34')).toBe('"0712 34"');
		expect(quoted('x'.repeat(100))).toBe(`"${'x'.repeat(39)}…"`);
		expect(quoted('😀'.repeat(50))).toBe(`"${'😀'.repeat(39)}…"`);
		expect(quoted('a\nb\uD83D')).toBe('"a\\nb\\ud83d"');
		expect(quoted('https://u:pw@hooks.example.com/x?token=abc#frag')).toBe('"https://…@hooks.example.com/x?…"');
		expect(quoted(42)).toBe('42');
		expect(quoted(NaN)).toBeUndefined();
		expect(quoted({ a: 1 })).toBeUndefined();
	});

	it('adds the value once, and not for blank values', () => {
		expect(withValue('is not valid', 'abc')).toBe('is not valid (got "abc")');
		expect(withValue('must be one of a, b (got "c")', 'c')).toBe('must be one of a, b (got "c")');
		expect(withValue('must not be empty', '   ')).toBe('must not be empty');
	});

	it('a summary has one line per item, each item named once, several recipients of an item on its line', () => {
		const { message, description } = sendSummary(
			[
				{ itemIndex: 2, message: 'Item 2: The service refused the phone number', serviceMessage: 'bad' },
				{ itemIndex: 5, message: 'Item 5: recipient 0: "Phone Number" is not valid (got "1")' },
				{ itemIndex: 5, message: 'Item 5: recipient 3: "Phone Number" is not valid (got "2")' },
			],
			7,
			'recipient',
		);
		expect(message).toBe('3 recipient(s) were not accepted (items 2, 5); 7 were accepted');
		expect(description.split('\n\n')[0].split('\n')).toEqual([
			'item 2: The service refused the phone number: bad',
			'item 5: recipient 0: "Phone Number" is not valid (got "1"); recipient 3: "Phone Number" is not valid (got "2")',
		]);
	});

	it("a call's error shared by several items names them all", () => {
		expect(sharedErrorMessage('Item 0: Not enough credits on the account', 0, [0, 1, 2])).toBe('Items 0, 1, 2: Not enough credits on the account');
		expect(sharedErrorMessage('POST /api/sms/send-api failed: X', 0, [0, 1])).toBe('POST /api/sms/send-api failed: X');
	});
});

describe('rules/dateTime: every accepted format gets the calendar check', () => {
	it.each([
		['2031-02-28T10:00:00+03:00', '2031-02-28T07:00:00.000Z'],
		['Feb 28 2031 10:00 +0300', '2031-02-28T07:00:00.000Z'],
		['Tue, 29 Feb 2028 10:00:00 +0000', '2028-02-29T10:00:00.000Z'],
		['2031/02/28 10:00Z', '2031-02-28T10:00:00.000Z'],
		['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
	])('reads %s', (text, iso) => {
		expect(readDateTime(text, 'UTC')).toEqual({ iso });
	});

	it.each([['Feb 29 2031 10:00Z'], ['30 February 2031 10:00 +0300'], ['Sep 31 2031 10:00Z'], ['2031/04/31 10:00Z'], ['2031-02-29T10:00Z']])(
		'refuses %s as a date that does not exist',
		(text) => {
			expect(readDateTime(text, 'UTC')).toEqual({ problem: expect.stringMatching(/^must be a date that exists/) });
		},
	);

	it('refuses years past 9999 however they are written', () => {
		for (const value of ['+010000-01-01T00:00:00Z', '10000-01-01T00:00:00Z', new Date(Date.UTC(10000, 0, 1))]) {
			expect(readDateTime(value, 'UTC')).toEqual({ problem: expect.stringMatching(/year from 0 to 9999/) });
		}
	});
});

describe('rules/schemas: well-formed text', () => {
	it('finds a lone surrogate and its position, and passes pairs', () => {
		expect(loneSurrogateAt('Hi 😀')).toBeUndefined();
		expect(loneSurrogateAt('Hi \uD83D')).toBe(4);
		expect(loneSurrogateAt('😀\uDE00')).toBe(2);
	});
});

describe('sending/recovery: a message an earlier try may have sent', () => {
	const earlier = { outcome: 'unknown' as const, message: 'Item 3: No answer from the service: the request may have been processed', sentIn: { executionId: '41' } };
	const node = (typeVersion: number) => ({ id: 'n', name: 'SVC Messaging', type: 'svcMessaging', typeVersion, position: [0, 0] as [number, number], parameters: {} });

	it('version 2 names the item first, once, as every error does; version 1 as before', () => {
		expect(unknownOutcomeError(node(2), earlier, 3).message).toBe('Item 3: An earlier try may already have sent this message (No answer from the service: the request may have been processed)');
		expect(unknownOutcomeError(node(1), earlier, 3).message).toBe('An earlier try may already have sent this message (No answer from the service: the request may have been processed)');
	});
});
