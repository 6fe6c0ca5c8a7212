import type { INode } from 'n8n-workflow';

import { withValue } from './errorText';
import { failItem } from './fields';

/** The six countries whose own zone Sending Hours knows from the number: Time Zone is not used for them. */
export const ZONE_KNOWN_COUNTRIES = 'Kenya, Uganda, Tanzania, Rwanda, Nigeria and Ghana';

const RULE = 'must be an IANA time zone name such as Africa/Cairo or Europe/London';

/**
 * An IANA name: Area/Location (Africa/Nairobi, America/Argentina/Salta, Etc/GMT+3) or UTC. An
 * abbreviation ("EAT") or a city alone ("Nairobi") is refused even where the runtime would guess one.
 */
const IANA_SHAPE = /^(UTC|[A-Za-z]+(\/[A-Za-z0-9_+-]+)+)$/;

function isIanaZone(name: string): boolean {
	if (!IANA_SHAPE.test(name)) return false;
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: name });
		return true;
	} catch {
		return false;
	}
}

/**
 * Options → Sending Hours → "Time Zone" of item `i`: an IANA name, or empty (undefined: the
 * workflow's time zone). Checked for every item before any request, even when every number is in
 * one of the six countries (where it does not apply), so that a wrong name never waits for its first
 * foreign number.
 */
export function checkTimeZone(node: INode, value: unknown, itemIndex: number): string | undefined {
	const text = typeof value === 'string' ? value.trim() : value;
	if (text === undefined || text === null || text === '') return undefined;
	if (typeof text === 'string' && isIanaZone(text)) return text;
	return failItem(
		node,
		itemIndex,
		`"Time Zone" ${withValue(RULE, text)}`,
		undefined,
		`Nothing was sent. Options → Sending Hours → Time Zone applies to numbers outside ${ZONE_KNOWN_COUNTRIES} (and a campaign's contact groups); leave it empty for the workflow's time zone.`,
	);
}
