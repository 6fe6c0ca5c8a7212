import type { IDataObject, INode } from 'n8n-workflow';

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
	if (month < 1 || month > 12 || day < 1) return false;
	const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
	return day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/**
 * An n8n dateTime value (wall-clock time in the workflow's timezone, or an ISO string with its own
 * offset, or a Luxon DateTime from an expression) as an ISO 8601 UTC instant; undefined if unreadable.
 */
export function toUtcIso(value: unknown, timeZone: string): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'object' && typeof (value as { toISO?: unknown }).toISO === 'function') {
		value = (value as { toISO: () => string }).toISO();
	}
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	// A date that does not exist (30 February, month 13, 25:00) is refused, not rolled over.
	const parts = ISO_PARTS.exec(text);
	if (parts && !isCalendarDate(parts)) return undefined;
	if (HAS_ZONE.test(text)) {
		const ms = Date.parse(text);
		return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
	}
	const m = LOCAL.exec(text);
	if (!m) return undefined;
	const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? 0));
	let utc = wall - zoneOffsetMs(wall, timeZone);
	utc = wall - zoneOffsetMs(utc, timeZone);
	return new Date(utc).toISOString();
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
		if (!date) failItem(node, i, `"${label}" must be a date`);
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
