/**
 * The phone numbering seam: what rules/phone.ts asks of a numbering library. The self-hosted
 * package asks libphonenumber-js (its mobile metadata); the Cloud edition's build puts
 * cloud/platform/phoneNumbers.ts in this file's place (the same answers from numbering data
 * generated from libphonenumber-js at build time).
 */
import { Metadata } from 'libphonenumber-js/core';
import type { CountryCode, MetadataJson } from 'libphonenumber-js/mobile';
import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import mobileMetadata from 'libphonenumber-js/mobile/metadata';

import type { MobilePlan, ParsedNumber } from './seamTypes';

export type { MobilePlan, ParsedNumber } from './seamTypes';

/**
 * Reads `digits` (an optional leading + and digits only) as a phone number; `defaultCountry` is the
 * country of a national number. Undefined when it is not one (no such calling code, too short, too long).
 */
export function parsePhone(digits: string, defaultCountry?: string): ParsedNumber | undefined {
	return parsePhoneNumberFromString(digits, defaultCountry as CountryCode | undefined);
}

interface MetadataApi {
	selectNumberingPlan(country: string): void;
	getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
	numberingPlan: {
		callingCode(): string;
		nationalNumberPattern(): string;
		possibleLengths(): number[];
		type(type: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
	};
}

/**
 * The mobile plans of those of `countries` whose calling code is theirs alone and whose numbers are
 * all mobile (no fixed-line type): for them, a national number that matches the plan is exactly what
 * `parsePhone(…).isValid()` accepts. Empty for a metadata layout it cannot read.
 */
export function mobilePlans(countries: string[]): MobilePlan[] {
	const plans: MobilePlan[] = [];
	try {
		const metadata = new Metadata(mobileMetadata as MetadataJson) as unknown as MetadataApi;
		for (const country of countries) {
			metadata.selectNumberingPlan(country);
			const plan = metadata.numberingPlan;
			const callingCode = plan.callingCode();
			const mobile = plan.type('MOBILE');
			if (metadata.getCountryCodesForCallingCode(callingCode)?.length !== 1) continue;
			if (plan.type('FIXED_LINE') || !mobile?.pattern()) continue;
			plans.push({
				country,
				callingCode,
				national: new RegExp(`^(?:${plan.nationalNumberPattern()})$`),
				mobile: new RegExp(`^(?:${mobile.pattern()})$`),
				lengths: mobile.possibleLengths() ?? plan.possibleLengths(),
			});
		}
	} catch {
		// Another metadata layout: every number takes the full parse.
	}
	return plans;
}
