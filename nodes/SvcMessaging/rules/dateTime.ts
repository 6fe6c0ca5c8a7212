import type { IDataObject, INode } from 'n8n-workflow';

import { withValue } from './errorText';
import { failItem } from './fields';

/** Offset of `timeZone` from UTC at the instant `utcMs`, in ms. */
function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
	return asUtc - Math.floor(utcMs / 1000) * 1000;
}

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;

/** The date and time fields of an ISO 8601 text, whatever follows them (seconds, fraction, zone). */
const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

function isCalendarDate(parts: RegExpExecArray): boolean {
	const [year, month, day, hour, minute, second] = parts.slice(1).map((p) => (p === undefined ? 0 : Number(p)));
	return isDay(year, month, day) && hour <= 23 && minute <= 59 && second <= 59;
}

function isDay(year: number, month: number, day: number): boolean {
	if (month < 1 || month > 12 || day < 1) return false;
	return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = /\b(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\b/;
const ZONE = /\s*(?:Z|(?:GMT|UTC)?\s*[+-]\d{2}:?\d{2}|GMT|UTC)$/i;

/**
 * The other formats JavaScript reads (`Feb 30 2031 10:00 +0300`, `31 June 2031 10:00Z`,
 * `2031/02/30 10:00Z`) roll an impossible day over into the next month. Whether the day and time
 * they state exist; undefined when no day can be told from the text (it is then refused).
 */
function statesRealDate(text: string): boolean | undefined {
	let rest = text.replace(ZONE, '');
	const time = TIME.exec(rest);
	if (time && (Number(time[1]) > 23 || Number(time[2]) > 59 || Number(time[3] ?? 0) > 59)) return false;
	rest = rest.replace(TIME, ' ');
	const monthWords = [...rest.toLowerCase().matchAll(/[a-z]+/g)].map((m) => MONTHS.indexOf(m[0].slice(0, 3))).filter((m) => m >= 0);
	const numbers = [...rest.matchAll(/\d+/g)].map((m) => m[0]);
	if (monthWords.length === 1) {
		const years = numbers.filter((n) => n.length >= 3);
		const days = numbers.filter((n) => n.length <= 2);
		if (years.length !== 1 || days.length !== 1) return undefined;
		return isDay(Number(years[0]), monthWords[0] + 1, Number(days[0]));
	}
	if (monthWords.length > 1) return undefined;
	const ymd = /^\s*(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})\s*$/.exec(rest);
	if (ymd) return isDay(+ymd[1], +ymd[2], +ymd[3]);
	// JavaScript reads 02/28/2031 month first.
	const mdy = /^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$/.exec(rest);
	if (mdy) return isDay(+mdy[3], +mdy[1], +mdy[2]);
	return undefined;
}

/** The service, like ISO 8601 without an agreed extension, takes four-digit years. */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const EARLIEST = Date.parse('0000-01-01T00:00:00Z');

export const DATE_RULES = {
	unreadable: 'must be a date and time (ISO 8601, e.g. 2031-02-28T10:00:00+03:00)',
	notACalendarDate: 'must be a date that exists (that day or time is not in the calendar, e.g. 30 February or 25:00)',
	beyondYear9999: 'must be in a year from 0 to 9999 (four digits)',
} as const;

/**
 * An n8n dateTime value (wall-clock time in the workflow's timezone, or a text with its own
 * offset, or a Luxon DateTime from an expression) as an ISO 8601 UTC instant, or why it is not one.
 * A day or time that does not exist is refused in every format, not rolled over.
 */
export function readDateTime(value: unknown, timeZone: string): { iso: string } | { problem: string } {
	const ms = instantOf(value, timeZone);
	if (typeof ms === 'string') return { problem: ms };
	if (ms > LATEST || ms < EARLIEST) return { problem: DATE_RULES.beyondYear9999 };
	return { iso: new Date(ms).toISOString() };
}

function instantOf(value: unknown, timeZone: string): number | string {
	if (typeof value === 'object' && value !== null && typeof (value as { toISO?: unknown }).toISO === 'function') {
		value = (value as { toISO: () => string }).toISO();
	}
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? DATE_RULES.unreadable : value.getTime();
	if (typeof value !== 'string') return DATE_RULES.unreadable;
	const text = value.trim();
	if (/^[+-]?\d{5,}-/.test(text)) return DATE_RULES.beyondYear9999;
	const parts = ISO_PARTS.exec(text);
	if (parts && !isCalendarDate(parts)) return DATE_RULES.notACalendarDate;
	if (HAS_ZONE.test(text)) {
		const ms = Date.parse(text);
		if (Number.isNaN(ms)) return DATE_RULES.unreadable;
		if (!parts) {
			const real = statesRealDate(text);
			if (real === undefined) return DATE_RULES.unreadable;
			if (!real) return DATE_RULES.notACalendarDate;
		}
		return ms;
	}
	const m = LOCAL.exec(text);
	if (!m) return DATE_RULES.unreadable;
	const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? 0));
	const utc = wall - zoneOffsetMs(wall, timeZone);
	return wall - zoneOffsetMs(utc, timeZone);
}

/** readDateTime's instant, or undefined for an empty or refused value. */
export function toUtcIso(value: unknown, timeZone: string): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const read = readDateTime(value, timeZone);
	return 'iso' in read ? read.iso : undefined;
}

/**
 * A reporting period's Start and End Date (either may be absent) as calendar dates in the
 * workflow's timezone, or `Item N: "Start Date" …` when one is not a date or they are reversed.
 */
export function checkPeriod(node: INode, i: number, filters: { startDate?: unknown; endDate?: unknown }, timeZone: string): IDataObject {
	const period: IDataObject = {};
	for (const [key, label] of [['startDate', 'Start Date'], ['endDate', 'End Date']] as const) {
		if (!filters[key]) continue;
		const date = toLocalDate(filters[key], timeZone);
		if (!date) failItem(node, i, `"${label}" ${withValue('must be a date that exists', filters[key])}`);
		period[key] = date;
	}
	if (period.startDate && period.endDate && String(period.startDate) > String(period.endDate)) {
		failItem(node, i, '"Start Date" must not be after "End Date"');
	}
	return period;
}

/** The calendar date (YYYY-MM-DD) of an n8n dateTime value, read in the workflow's timezone. */
export function toLocalDate(value: unknown, timeZone: string): string | undefined {
	if (typeof value === 'string' && LOCAL.test(value.trim())) {
		const parts = ISO_PARTS.exec(value.trim());
		return parts && isCalendarDate(parts) ? value.trim().slice(0, 10) : undefined;
	}
	const iso = toUtcIso(value, timeZone);
	if (!iso) return undefined;
	return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
}
