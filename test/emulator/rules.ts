/** SMS rules: phone numbers, segments, sender IDs and credits. */
import {
	DEFAULT_NATIONAL_DIGITS,
	DEFAULT_SENDER_ID,
	GSM7_BASIC,
	GSM7_EXTENSION,
	NATIONAL_DIGITS,
	TEST_NUMBER_OUTCOMES,
} from './assumptions';
import { ApiError, codePoints, unprocessable } from './http';
import {
	CREDITS_PER_SEGMENT,
	GSM7_SEGMENT_SEPTETS,
	MAX_MESSAGE_CHARS,
	NUMERIC_SENDER_COUNTRIES,
	SENDER_ID_PATTERN,
	SMS_COUNTRIES,
	UNICODE_SEGMENT_UNITS,
} from './limits';
import type { Account, FailureReason } from './state';

/** The ISO country of a valid E.164 number of the six SMS countries, else null. */
export function smsCountry(phoneNumber: string): string | null {
	const match = /^\+(\d{3})([1-9]\d*)$/.exec(phoneNumber);
	if (!match) return null;
	const country = SMS_COUNTRIES[match[1]];
	if (!country) return null;
	const digits = NATIONAL_DIGITS[match[1]] ?? DEFAULT_NATIONAL_DIGITS;
	return match[2].length === digits ? country : null;
}

export function invalidPhone(phoneNumber: string): ApiError {
	return unprocessable(
		'INVALID_PHONE_NUMBER',
		`Invalid phone number '${phoneNumber}': expected E.164 (+ and country code, no leading zero) for KE, NG, UG, TZ, RW or GH`,
	);
}

/** Campaign numbers: non-digits removed; a leading 0 or 9 digits get 254; `+` prefixed; null if invalid. */
export function formatCampaignNumber(raw: string): string | null {
	let digits = raw.replace(/\D/g, '');
	if (digits.startsWith('0')) digits = `254${digits.slice(1)}`;
	else if (digits.length === 9) digits = `254${digits}`;
	const formatted = `+${digits}`;
	return smsCountry(formatted) ? formatted : null;
}

export function tooLong(text: string): ApiError | null {
	const length = codePoints(text);
	return length > MAX_MESSAGE_CHARS
		? unprocessable('MESSAGE_TOO_LONG', `Message is ${length} characters; the maximum is ${MAX_MESSAGE_CHARS}`)
		: null;
}

const basic = new Set(GSM7_BASIC);
const extension = new Set(GSM7_EXTENSION);

export interface SegmentInfo {
	encoding: 'GSM7' | 'UNICODE';
	segments: number;
}

/** GSM-7: 160 septets per segment (extension characters count 2); otherwise UTF-16 units, 70 per segment. */
export function segmentInfo(text: string): SegmentInfo {
	let septets = 0;
	for (const ch of text) {
		if (basic.has(ch)) septets += 1;
		else if (extension.has(ch)) septets += 2;
		else return { encoding: 'UNICODE', segments: Math.max(1, Math.ceil(text.length / UNICODE_SEGMENT_UNITS)) };
	}
	return { encoding: 'GSM7', segments: Math.max(1, Math.ceil(septets / GSM7_SEGMENT_SEPTETS)) };
}

export function creditsFor(segments: number): number {
	return segments * CREDITS_PER_SEGMENT;
}

export function senderFormatError(senderId: string): ApiError | null {
	return SENDER_ID_PATTERN.test(senderId)
		? null
		: unprocessable(
				'INVALID_SENDER_ID',
				`Sender ID '${senderId}' is invalid: use 1-11 characters, letters A-Z and digits 0-9 only`,
			);
}

/** Why `senderId` may not send to `country` for this account, or null when it may. */
export function senderCountryError(account: Account, senderId: string, country: string): ApiError | null {
	if (senderId === DEFAULT_SENDER_ID) return null;
	const sender = account.senderIds.find((s) => s.senderId === senderId && s.status === 'ACTIVE');
	if (!sender) {
		return unprocessable('INVALID_SENDER_ID', `Sender ID '${senderId}' is not an approved sender ID of this account`);
	}
	if (sender.type === 'NUMERIC' && !NUMERIC_SENDER_COUNTRIES.includes(country)) {
		return unprocessable(
			'INVALID_SENDER_ID',
			`Numeric sender ID '${senderId}' is not allowed in ${country}; numeric sender IDs are allowed only in ${NUMERIC_SENDER_COUNTRIES.join(', ')}`,
		);
	}
	if (!sender.countries.includes(country)) {
		return unprocessable(
			'INVALID_SENDER_ID',
			country === 'GH'
				? `Sender ID '${senderId}' is not pre-approved for GH`
				: `Sender ID '${senderId}' is not approved for ${country}`,
		);
	}
	return null;
}

/** Takes `amount` credits or throws 402 INSUFFICIENT_CREDITS (nothing taken). */
export function charge(account: Account, amount: number, now: number): void {
	if (amount > account.credits) {
		throw new ApiError(
			402,
			'INSUFFICIENT_CREDITS',
			`Insufficient credits: ${amount} required, ${account.credits} available`,
		);
	}
	account.credits -= amount;
	account.creditsUpdatedAt = now;
}

/** The fixed outcome of a test number, or delivered. */
export function outcomeOf(phoneNumber: string): { status: 'DELIVERED' | 'FAILED' | 'EXPIRED'; reason: FailureReason | null } {
	const rule = TEST_NUMBER_OUTCOMES.find((r) => phoneNumber.endsWith(r.suffix));
	if (!rule) return { status: 'DELIVERED', reason: null };
	return { status: rule.status, reason: rule.reason ? { ...rule.reason } : null };
}

/** `{{name}}` placeholders replaced by the recipient's variables; unknown names stay as written. */
export function substitute(message: string, variables: Record<string, string> | undefined): string {
	if (!variables) return message;
	return message.replace(/\{\{\s*([^{}\s]+)\s*\}\}/g, (whole, name: string) =>
		Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : whole,
	);
}
