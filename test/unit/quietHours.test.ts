import type { INode } from 'n8n-workflow';

import { checkTimeZone } from '../../nodes/SvcMessaging/rules/timeZone';
import { judge, readQuietHours, verdictFields, type QuietHours } from '../../nodes/SvcMessaging/sending/policies/quietHours';

const node = { name: 'SVC Messaging' } as INode;
const hoursOf = (hours: Record<string, unknown>, zone = 'UTC'): QuietHours =>
	readQuietHours(node, { hours: { from: '08:00', until: '20:00', outside: 'schedule', ...hours } }, () => zone)!;

/** An instant given as a local wall time in a zone `offset` minutes from UTC (2026-11-26 is a Thursday). */
const at = (local: string, offset: number) => Date.parse(`${local}Z`) - offset * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const SIX: Array<[country: string, number: string, offset: number, label: string]> = [
	['KE', '+254712345678', 180, 'KE UTC+03:00'],
	['UG', '+256712345678', 180, 'UG UTC+03:00'],
	['TZ', '+255712345678', 180, 'TZ UTC+03:00'],
	['RW', '+250788123456', 120, 'RW UTC+02:00'],
	['NG', '+2348031234567', 60, 'NG UTC+01:00'],
	['GH', '+233241234567', 0, 'GH UTC+00:00'],
];

describe('sending/policies/quietHours.ts: the recipient\'s local time, from the number', () => {
	const hours = hoursOf({});

	describe.each(SIX)('%s (%s)', (_country, number, offset, label) => {
		const verdict = (local: string) => judge(hours, number, 0, at(local, offset));

		it('08:00 and 19:59 local are open; 07:59 and 20:00 are not', () => {
			expect(verdict('2026-11-26T08:00').kind).toBe('open');
			expect(verdict('2026-11-26T19:59').kind).toBe('open');
			expect(verdict('2026-11-26T07:59')).toEqual({
				kind: 'schedule',
				opening: at('2026-11-26T08:00', offset),
				judgedLocal: `2026-11-26T07:59${label.slice(-6)}`,
				zone: label,
			});
			expect(verdict('2026-11-26T20:00')).toMatchObject({ kind: 'schedule', opening: at('2026-11-27T08:00', offset) });
		});

		it('across midnight: 23:59 and 00:00 local both open at 08:00 of the next local day', () => {
			expect(verdict('2026-11-26T23:59')).toMatchObject({ opening: at('2026-11-27T08:00', offset) });
			expect(verdict('2026-11-27T00:00')).toMatchObject({ opening: at('2026-11-27T08:00', offset) });
			// 01:00 local: still the day before in UTC east of Greenwich
			expect(verdict('2026-11-27T01:00')).toMatchObject({ opening: at('2026-11-27T08:00', offset) });
		});
	});

	it('the same instant is open in Accra and closed in Nairobi (19:30 UTC)', () => {
		const instant = Date.parse('2026-11-26T19:30:00Z');
		expect(judge(hours, '+233241234567', 0, instant).kind).toBe('open');
		expect(judge(hours, '+2348031234567', 0, instant).kind).toBe('schedule');
		expect(judge(hours, '+254712345678', 0, instant).kind).toBe('schedule');
	});

	it('allowed days: Saturday 10:00 in Nairobi with weekdays only opens on Monday 08:00', () => {
		const weekdays = hoursOf({ days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] });
		expect(judge(weekdays, '+254712345678', 0, at('2026-11-28T10:00', 180))).toMatchObject({ opening: at('2026-11-30T08:00', 180) });
		expect(judge(weekdays, '+254712345678', 0, at('2026-11-27T10:00', 180)).kind).toBe('open');
	});

	it('hours across midnight (20:00 to 02:00): 01:59 belongs to the day before, 02:00 waits for 20:00', () => {
		const night = hoursOf({ from: '20:00', until: '02:00', days: ['thursday'] });
		expect(judge(night, '+2348031234567', 0, at('2026-11-26T20:00', 60)).kind).toBe('open');
		expect(judge(night, '+2348031234567', 0, at('2026-11-27T01:59', 60)).kind).toBe('open');
		expect(judge(night, '+2348031234567', 0, at('2026-11-27T02:00', 60))).toMatchObject({ opening: at('2026-12-03T20:00', 60) });
	});

	it('another country: the Time Zone (an IANA name), with its daylight saving', () => {
		const london = hoursOf({}, 'Europe/London');
		expect(judge(london, '+447700900123', 0, Date.parse('2026-07-01T07:30:00Z')).kind).toBe('open'); // 08:30 BST
		expect(judge(london, '+447700900123', 0, Date.parse('2026-12-01T07:30:00Z'))).toMatchObject({
			zone: 'Europe/London',
			opening: Date.parse('2026-12-01T08:00:00Z'),
			judgedLocal: '2026-12-01T07:30+00:00',
		});
	});

	it('a Scheduled Time of the user inside the quiet hours is judged, and moved (saying from what)', () => {
		const own = iso(at('2026-11-27T22:00', 180));
		const verdict = judge(hours, '+254712345678', 0, at('2026-11-26T12:00', 180), own);
		expect(verdictFields(verdict, own)).toEqual({
			outsideSendingHours: true,
			judgedLocalTime: '2026-11-27T22:00+03:00',
			timeZone: 'KE UTC+03:00',
			scheduledAt: iso(at('2026-11-28T08:00', 180)),
			movedFrom: own,
		});
	});

	it('skip and send anyway: what the output says', () => {
		const closed = at('2026-11-26T21:00', 180);
		expect(verdictFields(judge(hoursOf({ outside: 'skip' }), '+254712345678', 0, closed))).toMatchObject({
			sent: false,
			skipped: true,
			nextOpening: iso(at('2026-11-27T08:00', 180)),
		});
		expect(verdictFields(judge(hoursOf({ outside: 'send' }), '+254712345678', 0, closed))).toMatchObject({ sentAnyway: true });
	});

	it('refuses what it cannot read, naming the field', () => {
		expect(() => hoursOf({ from: '8:00' })).toThrow('Item 0: "Allowed From" must be a time as HH:MM, 00:00 to 23:59 (got "8:00")');
		expect(() => hoursOf({ until: '24:00' })).toThrow('"Allowed Until" must be a time as HH:MM');
		expect(() => hoursOf({ until: '08:00' })).toThrow('"Allowed From" and "Allowed Until" must differ');
		expect(() => hoursOf({ days: [] })).toThrow('"Allowed Days" must name at least one day');
		expect(readQuietHours(node, undefined, () => 'UTC')).toBeUndefined();
	});
});

describe('Sending Hours → Time Zone (rules/timeZone.ts)', () => {
	it.each(['Africa/Nairobi', 'Europe/London', 'America/Argentina/Salta', 'Etc/GMT+3', 'UTC'])('accepts the IANA name %s', (zone) => {
		expect(checkTimeZone(node, ` ${zone} `, 0)).toBe(zone);
	});

	it('empty: undefined (the workflow\'s time zone)', () => {
		expect(checkTimeZone(node, '', 0)).toBeUndefined();
		expect(checkTimeZone(node, undefined, 0)).toBeUndefined();
	});

	it.each([
		['Nairobi', 'Item 2: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "Nairobi")'],
		['EAT', 'Item 2: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "EAT")'],
		['+03:00', 'Item 2: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "+03:00")'],
		['Mars/Olympus', 'Item 2: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "Mars/Olympus")'],
	])('refuses %s, naming the field, the item, the value and the rule, and where it applies', (value, message) => {
		let error: (Error & { description?: string }) | undefined;
		try {
			checkTimeZone(node, value, 2);
		} catch (thrown) {
			error = thrown as Error & { description?: string };
		}
		expect(error?.message).toBe(message);
		expect(error?.description).toContain('numbers outside Kenya, Uganda, Tanzania, Rwanda, Nigeria and Ghana');
	});
});
