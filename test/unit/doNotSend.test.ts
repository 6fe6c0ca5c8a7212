import type { INode } from 'n8n-workflow';

import { readDoNotSendNumbers } from '../../nodes/SvcMessaging/sending/policies/doNotSend';
import { judgeTogether, readQuietHours, zoneOfNumber, type QuietHours } from '../../nodes/SvcMessaging/sending/policies/quietHours';

const node = { name: 'SVC Messaging' } as INode;

describe('sending/policies/doNotSend.ts: "Do-Not-Send List → Numbers", read once into E.164', () => {
	it('a text split at commas, semicolons and new lines; national numbers with Default Country; empty entries ignored', () => {
		expect([...readDoNotSendNumbers(node, '+254712345601, 0712 345 602;\n\n0712-345-603,', 'KE')!]).toEqual(['+254712345601', '+254712345602', '+254712345603']);
	});

	it('an array (as mapped from rows), nested arrays and numbers too; one number listed twice is one entry', () => {
		expect([...readDoNotSendNumbers(node, [['+254712345601'], null, '+254712345601', 254712345602, ''], 'KE')!]).toEqual(['+254712345601', '+254712345602']);
	});

	it('numbers of any country (chat reaches every one)', () => {
		expect([...readDoNotSendNumbers(node, '+447700900123', undefined)!]).toEqual(['+447700900123']);
	});

	it('nothing listed: no set (the send checks nothing)', () => {
		expect(readDoNotSendNumbers(node, '', undefined)).toBeUndefined();
		expect(readDoNotSendNumbers(node, [], undefined)).toBeUndefined();
		expect(readDoNotSendNumbers(node, undefined, undefined)).toBeUndefined();
	});

	it('an entry that is not a number refuses the send, naming the entry, the value and the rule', () => {
		expect(() => readDoNotSendNumbers(node, '+254712345601, opted out', 'KE')).toThrow(
			'Item 0: "Do-Not-Send List → Numbers" entry 2 must hold only the phone number: digits with an optional leading + or 00 (spaces, dashes, dots, brackets and "tel:" may stay), no other text (got "opted out")',
		);
		expect(() => readDoNotSendNumbers(node, '0712345601', undefined)).toThrow(/entry 1 must be in E\.164 format/);
		expect(() => readDoNotSendNumbers(node, [{ phone: '+254712345601' }], undefined)).toThrow('entry 1 must be a phone number, not an object');
	});
});

describe('sending/policies/quietHours.ts judgeTogether: one send time for several zones (a campaign)', () => {
	const hoursOf = (extra: Record<string, unknown> = {}): QuietHours =>
		readQuietHours(node, { hours: { from: '08:00', until: '20:00', outside: 'schedule', ...extra } }, () => 'Africa/Nairobi')!;
	const zones = (hours: QuietHours, ...numbers: string[]) => numbers.map((n) => zoneOfNumber(hours, n, 0));
	const KE = '+254712345601';
	const GH = '+233241234567';
	const NG = '+2348031234567';

	it('open in every zone: open', () => {
		const hours = hoursOf();
		expect(judgeTogether(hours, zones(hours, KE, GH), '2026-11-26T09:00:00Z').kind).toBe('open');
	});

	it('closed in one zone: the first time open in all (06:00 UTC → 08:00 Accra = 11:00 Nairobi)', () => {
		const hours = hoursOf();
		expect(judgeTogether(hours, zones(hours, KE, GH), '2026-11-26T06:00:00Z')).toMatchObject({
			kind: 'schedule',
			opening: Date.parse('2026-11-26T08:00:00Z'),
			zone: 'KE UTC+03:00, GH UTC+00:00',
			judgedLocal: '2026-11-26T09:00+03:00',
		});
	});

	it('late in Nairobi, open in Lagos: the next morning in Nairobi, when Lagos is open too', () => {
		const hours = hoursOf();
		// 17:30 UTC: 20:30 Nairobi (closed), 18:30 Lagos (open) → 05:00 UTC is 08:00 Nairobi but 06:00 Lagos → 07:00 UTC.
		expect(judgeTogether(hours, zones(hours, KE, NG), '2026-11-26T17:30:00Z')).toMatchObject({ opening: Date.parse('2026-11-27T07:00:00Z') });
	});

	it('across a closed day: Saturday only', () => {
		const hours = hoursOf({ days: ['saturday'] });
		// 2026-11-26 is a Thursday.
		expect(judgeTogether(hours, zones(hours, KE, GH), '2026-11-26T09:00:00Z')).toMatchObject({ opening: Date.parse('2026-11-28T08:00:00Z') });
	});

	it('hours that never overlap (08:00–10:00 in UTC+3 and UTC+0): never', () => {
		const hours = hoursOf({ until: '10:00' });
		expect(judgeTogether(hours, zones(hours, KE, GH), '2026-11-26T09:00:00Z')).toEqual({ kind: 'never', zone: 'KE UTC+03:00, GH UTC+00:00' });
	});
});
