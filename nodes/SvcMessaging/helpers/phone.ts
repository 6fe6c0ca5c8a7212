import type { CountryCode } from 'libphonenumber-js/mobile';
import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';

/** The spec's supported SMS destinations. */
export const SUPPORTED_COUNTRIES: Record<string, string> = {
	KE: 'Kenya',
	NG: 'Nigeria',
	UG: 'Uganda',
	TZ: 'Tanzania',
	RW: 'Rwanda',
	GH: 'Ghana',
};

export type NumberCheck = 'mobile' | 'format';

export type PhoneResult = { ok: true; e164: string; country?: string } | { ok: false; rule: string };

const E164_SHAPE = /^\+[1-9]\d{6,14}$/;

/**
 * Normalises a phone number to E.164. `mobile` asks libphonenumber whether it is a valid mobile
 * number of a supported country; `format` only checks the E.164 shape and leaves the rest to the
 * service (for new number ranges the library does not know yet).
 */
export function normalizePhoneNumber(
	input: unknown,
	defaultCountry: string | undefined,
	check: NumberCheck = 'mobile',
): PhoneResult {
	if (typeof input !== 'string' && typeof input !== 'number') {
		return { ok: false, rule: 'must be a phone number (text)' };
	}
	const raw = String(input).trim();
	if (raw === '') return { ok: false, rule: 'must not be empty' };
	const compact = raw.replace(/[\s().-]/g, '').replace(/^00/, '+');
	const country = defaultCountry ? (defaultCountry as CountryCode) : undefined;
	const parsed = parsePhoneNumberFromString(compact, country);

	if (check === 'format') {
		const e164 = parsed?.number ?? compact;
		return E164_SHAPE.test(e164)
			? { ok: true, e164, country: parsed?.country }
			: { ok: false, rule: 'must be in E.164 format (+ and country code, no leading zero), e.g. +254712345678' };
	}
	if (!parsed) {
		return {
			ok: false,
			rule: compact.startsWith('+')
				? 'is not a valid phone number'
				: 'must be in E.164 format (+ and country code), or set Default Country for national numbers',
		};
	}
	if (!parsed.country || !SUPPORTED_COUNTRIES[parsed.country]) {
		return {
			ok: false,
			rule: `is not in a supported destination country (${Object.values(SUPPORTED_COUNTRIES).join(', ')})`,
		};
	}
	if (!parsed.isValid()) {
		return { ok: false, rule: `is not a valid ${SUPPORTED_COUNTRIES[parsed.country]} mobile number` };
	}
	return { ok: true, e164: parsed.number, country: parsed.country };
}
