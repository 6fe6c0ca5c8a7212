import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { countryOfNumber } from '../../rules/phone';
import { INVALID_INPUT, withErrorCode } from '../../transport/errors';

/**
 * "Sending Hours": a message goes out only when the recipient's local time is inside the allowed
 * hours of an allowed day. The six countries of the service have one time zone each and no
 * daylight saving, and each has a calling code of its own (rules/phone.ts), so the number alone
 * gives its local time. Any other number (chat reaches every country) is judged in the item's Time Zone field,
 * else the workflow's time zone.
 */
export type Outside = 'schedule' | 'skip' | 'send';

export interface QuietHours {
	/** minutes after local midnight: first allowed minute, first minute no longer allowed */
	readonly from: number;
	readonly until: number;
	/** bit d set: day d allowed (0 Sunday … 6 Saturday) */
	readonly days: number;
	readonly outside: Outside;
	/** the IANA time zone of item `i`, for numbers outside the six countries */
	zoneOf(itemIndex: number): string;
}

/** UTC offset in minutes of the six countries (one zone each, no daylight saving). */
const OFFSETS: Record<string, number> = { KE: 180, UG: 180, TZ: 180, RW: 120, NG: 60, GH: 0 };

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
export const ALL_DAYS = DAYS;

/** A zone: a fixed offset (one of the six countries) or an IANA name. */
export type Zone = { fixed: number; label: string } | { iana: string };

export function zoneOfNumber(hours: QuietHours, phoneNumber: string, itemIndex: number): Zone {
	const country = countryOfNumber(phoneNumber);
	const offset = country === undefined ? undefined : OFFSETS[country];
	return offset === undefined ? { iana: hours.zoneOf(itemIndex) } : { fixed: offset, label: `${country} ${offsetText(offset)}` };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at instant `at`, in minutes. */
export function offsetAt(zone: Zone, at: number): number {
	if ('fixed' in zone) return zone.fixed;
	let format = formatters.get(zone.iana);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone: zone.iana,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
		});
		formatters.set(zone.iana, format);
	}
	const part: Record<string, number> = {};
	for (const p of format.formatToParts(at)) if (p.type !== 'literal') part[p.type] = Number(p.value);
	const local = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute);
	return Math.round((local - Math.floor(at / MINUTE) * MINUTE) / MINUTE);
}

function offsetText(offset: number): string {
	const sign = offset < 0 ? '-' : '+';
	const abs = Math.abs(offset);
	return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function zoneLabel(zone: Zone): string {
	return 'fixed' in zone ? zone.label : zone.iana;
}

/** Whether local wall time `local` (ms, as if UTC) is inside the hours. */
function isOpen(hours: QuietHours, local: number): boolean {
	const minutes = Math.floor((((local % DAY) + DAY) % DAY) / MINUTE);
	const day = new Date(local).getUTCDay();
	const allowed = (d: number) => (hours.days & (1 << ((d + 7) % 7))) !== 0;
	if (hours.from < hours.until) return allowed(day) && minutes >= hours.from && minutes < hours.until;
	// Hours across midnight (e.g. 20:00 to 02:00): the small hours belong to the day before.
	return (minutes >= hours.from && allowed(day)) || (minutes < hours.until && allowed(day - 1));
}

/** The next instant after `at` when the hours open (at `from` on an allowed day). */
function nextOpening(hours: QuietHours, zone: Zone, at: number): number {
	const local = at + offsetAt(zone, at) * MINUTE;
	const midnight = Math.floor(local / DAY) * DAY;
	for (let d = 0; d <= 7; d++) {
		const opening = midnight + d * DAY + hours.from * MINUTE;
		if (opening <= local || (hours.days & (1 << new Date(opening).getUTCDay())) === 0) continue;
		// Local wall time to an instant: the zone's offset near it (twice, for a change of offset).
		const guess = opening - offsetAt(zone, opening - offsetAt(zone, at) * MINUTE) * MINUTE;
		return opening - offsetAt(zone, guess) * MINUTE;
	}
	return at;
}

/** What Sending Hours does with one message. */
export type Verdict =
	| { kind: 'open' }
	| { kind: 'send' | 'skip' | 'schedule'; opening: number; judgedLocal: string; zone: string };

/** The verdict for a message to `phoneNumber`, at its own `scheduledAt` or else `now`. */
export function judge(hours: QuietHours, phoneNumber: string, itemIndex: number, now: number, scheduledAt?: string): Verdict {
	const zone = zoneOfNumber(hours, phoneNumber, itemIndex);
	const at = scheduledAt ? Date.parse(scheduledAt) : now;
	const offset = offsetAt(zone, at);
	if (isOpen(hours, at + offset * MINUTE)) return { kind: 'open' };
	return { kind: hours.outside, opening: nextOpening(hours, zone, at), judgedLocal: localText(at, offset), zone: zoneLabel(zone) };
}

/**
 * The verdict for one send time that several zones share (a scheduled campaign: its numbers'
 * countries, its contact groups in the Time Zone): the first instant from `scheduledAt` inside the
 * hours in every zone; 'never' when no such instant comes within a week (the zones' hours do not overlap).
 */
export function judgeTogether(hours: QuietHours, zones: Zone[], scheduledAt: string): Verdict | { kind: 'never'; zone: string } {
	const at = Date.parse(scheduledAt);
	const label = zones.map(zoneLabel).join(', ');
	let candidate = at;
	// Each move is to some zone's next opening; overlapping hours settle within a few rounds.
	for (let round = 0; round < 64 && candidate - at <= 8 * DAY; round++) {
		let moved = false;
		for (const zone of zones) {
			if (isOpen(hours, candidate + offsetAt(zone, candidate) * MINUTE)) continue;
			candidate = nextOpening(hours, zone, candidate);
			moved = true;
		}
		if (moved) continue;
		if (candidate === at) return { kind: 'open' };
		return { kind: hours.outside, opening: candidate, judgedLocal: localText(at, offsetAt(zones[0], at)), zone: label };
	}
	return { kind: 'never', zone: label };
}

/** `2026-11-26T22:15+03:00`: the local time a message was judged at, with its offset. */
function localText(at: number, offset: number): string {
	const local = new Date(Math.floor(at / MINUTE) * MINUTE + offset * MINUTE).toISOString().slice(0, 16);
	return `${local}${offsetText(offset).slice(3)}`;
}

/** The output fields of a message Sending Hours did not let go out now. */
export function verdictFields(verdict: Verdict, scheduledAt?: string): IDataObject {
	if (verdict.kind === 'open') return {};
	const opening = new Date(verdict.opening).toISOString();
	const fields: IDataObject = { outsideSendingHours: true, judgedLocalTime: verdict.judgedLocal, timeZone: verdict.zone };
	if (verdict.kind === 'skip') return { ...fields, sent: false, skipped: true, nextOpening: opening };
	if (verdict.kind === 'schedule') return { ...fields, scheduledAt: opening, ...(scheduledAt ? { movedFrom: scheduledAt } : {}) };
	return { ...fields, sentAnyway: true };
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * Sending Hours' time zone of each item, for numbers outside the six countries: its Time Zone field
 * (an IANA name, mappable per item), else the workflow's. Every item's is checked before any
 * request (a fixed value once), whether or not a number will need it.
 */
export function itemTimeZones(read: (i: number) => string | undefined, items: number, mapped: boolean, workflowZone: string): (i: number) => string {
	if (!mapped) {
		const zone = read(0) ?? workflowZone;
		return () => zone;
	}
	const zones = Array.from({ length: items }, (_, i) => read(i) ?? workflowZone);
	return (i) => zones[i] ?? workflowZone;
}

/** Options → Sending Hours, checked (one setting for the run). */
export function readQuietHours(node: INode, value: IDataObject | undefined, zoneOf: (i: number) => string): QuietHours | undefined {
	const hours = value?.hours as IDataObject | undefined;
	if (!hours) return undefined;
	const minutes = (field: string, label: string) => {
		const text = String(hours[field] ?? '').trim();
		const match = HH_MM.exec(text);
		if (!match) refuse(node, `"${label}" must be a time as HH:MM, 00:00 to 23:59 (got ${JSON.stringify(hours[field])})`);
		return Number(match![1]) * 60 + Number(match![2]);
	};
	const from = minutes('from', 'Allowed From');
	const until = minutes('until', 'Allowed Until');
	if (from === until) refuse(node, `"Allowed From" and "Allowed Until" must differ (both ${String(hours.from)})`);
	const chosen = (hours.days as string[] | undefined) ?? DAYS;
	let days = 0;
	for (const d of chosen) if (DAYS.includes(d)) days |= 1 << DAYS.indexOf(d);
	if (days === 0) refuse(node, '"Allowed Days" must name at least one day');
	const outside = String(hours.outside ?? 'schedule') as Outside;
	if (!['schedule', 'skip', 'send'].includes(outside)) refuse(node, `"Outside Sending Hours" must be Schedule, Skip or Send Anyway (got ${outside})`);
	return { from, until, days, outside, zoneOf };
}

function refuse(node: INode, rule: string): never {
	const error = new NodeOperationError(node, `Item 0: ${rule}`, { itemIndex: 0, description: 'Nothing was sent. Options → Sending Hours.' });
	throw withErrorCode(error, INVALID_INPUT);
}
