/**
 * The Cloud edition's phone numbering, in place of nodes/SvcMessaging/platform/phoneNumbers.ts: the
 * same interface and the same answers, without libphonenumber-js at run time. It reads the numbering
 * data cloud/numbering-data.mjs generates from libphonenumber-js at build time (numberingData.json,
 * beside this file in the build) and follows libphonenumber-js's own steps (1.13.16: parse.js,
 * extractCountryCallingCode, extractNationalNumber, getCountryByCallingCode, checkNumberLength,
 * getNumberType) for the only input rules/phone.ts gives it: an optional + and digits.
 * test/cloud/phoneNumbers.test.ts holds both implementations to one large corpus.
 */
import type { MobilePlan, ParsedNumber } from '../../nodes/SvcMessaging/platform/seamTypes';
import data from './numberingData.json';

export type { MobilePlan, ParsedNumber } from '../../nodes/SvcMessaging/platform/seamTypes';

interface NumberType {
	pattern: string;
	possibleLengths: number[] | null;
}

interface Plan {
	callingCode: string;
	IDDPrefix: string | null;
	nationalNumberPattern: string;
	possibleLengths: number[] | null;
	nationalPrefix: string | null;
	nationalPrefixForParsing: string | null;
	nationalPrefixTransformRule: string | null;
	leadingDigits: string | null;
	hasTypes: boolean;
	types: Record<string, NumberType | undefined>;
}

const PLANS = data.plans as unknown as Record<string, Plan | undefined>;
const CALLING_CODES = data.callingCodes as Record<string, string[] | undefined>;
const NON_GEOGRAPHIC = new Set<string>(data.nonGeographic);
const NON_FIXED_LINE_TYPES = ['MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];
const MIN_LENGTH_FOR_NSN = 2;
const MAX_LENGTH_FOR_NSN = 17;
const MAX_INPUT_LENGTH = 250;

const compiled = new Map<string, RegExp>();
const regex = (source: string) => {
	let found = compiled.get(source);
	if (!found) compiled.set(source, (found = new RegExp(source)));
	return found;
};
const matchesEntirely = (text: string, pattern: string) => regex(`^(?:${pattern})$`).test(text);

const hasCallingCode = (code: string) => !!CALLING_CODES[code] || NON_GEOGRAPHIC.has(code);

/** The plan of a country, or of a calling code (its main country's; libphonenumber's selectNumberingPlan). */
function planFor(countryOrCode: string): Plan {
	const isCode = /^\d+$/.test(countryOrCode);
	if (isCode && !hasCallingCode(countryOrCode)) throw new Error(`Unknown calling code: ${countryOrCode}`);
	const plan = isCode ? PLANS[CALLING_CODES[countryOrCode]?.[0] ?? countryOrCode] : PLANS[countryOrCode];
	if (!plan) throw new Error(`Unknown country: ${countryOrCode}`);
	return plan;
}

type LengthCheck = 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH';

function checkNumberLength(national: string, plan: Plan): LengthCheck {
	const lengths = plan.possibleLengths;
	if (!lengths) return 'IS_POSSIBLE';
	if (lengths[0] === national.length) return 'IS_POSSIBLE';
	if (lengths[0] > national.length) return 'TOO_SHORT';
	if (lengths[lengths.length - 1] < national.length) return 'TOO_LONG';
	return lengths.indexOf(national.length, 1) >= 0 ? 'IS_POSSIBLE' : 'INVALID_LENGTH';
}

function isNumberType(national: string, type: string, plan: Plan): boolean {
	const definition = plan.types[type];
	if (!definition?.pattern) return false;
	if (definition.possibleLengths && !definition.possibleLengths.includes(national.length)) return false;
	return matchesEntirely(national, definition.pattern);
}

function numberType(national: string, plan: Plan): string | undefined {
	if (!matchesEntirely(national, plan.nationalNumberPattern)) return undefined;
	if (isNumberType(national, 'FIXED_LINE', plan)) {
		const mobile = plan.types.MOBILE;
		return !mobile || mobile.pattern === '' || isNumberType(national, 'MOBILE', plan) ? 'FIXED_LINE_OR_MOBILE' : 'FIXED_LINE';
	}
	return NON_FIXED_LINE_TYPES.find((type) => isNumberType(national, type, plan));
}

function countryByCallingCode(code: string, national: string): string | undefined {
	const countries = CALLING_CODES[code];
	if (!countries) return undefined;
	if (countries.length === 1) return countries[0];
	return countries.find((country) => {
		const plan = planFor(country);
		if (plan.leadingDigits) return national.search(regex(plan.leadingDigits)) === 0;
		return numberType(national, plan) !== undefined;
	});
}

/** Takes a national prefix (and carrier code) off, where the plan's rules say it was one. */
function extractNationalNumber(number: string, plan: Plan): string {
	if (!number || !plan.nationalPrefixForParsing) return number;
	const prefix = regex(`^(?:${plan.nationalPrefixForParsing})`);
	const match = prefix.exec(number);
	if (!match) return number;
	const groups = match.length - 1;
	const captured = groups > 0 && match[groups];
	const national = plan.nationalPrefixTransformRule && captured ? number.replace(prefix, plan.nationalPrefixTransformRule) : number.slice(match[0].length);
	if (national === number) return number;
	if (matchesEntirely(number, plan.nationalNumberPattern) && !matchesEntirely(national, plan.nationalNumberPattern)) return number;
	if (plan.possibleLengths) {
		const country = countryByCallingCode(plan.callingCode, national);
		const check = checkNumberLength(national, country ? planFor(country) : plan);
		if (check === 'TOO_SHORT' || check === 'INVALID_LENGTH') return number;
	}
	return national;
}

/** An international number written without its + (254712…) with a default country of that calling code. */
function withoutPlusSign(number: string, plan: Plan): { code: string; rest: string } | undefined {
	const code = plan.callingCode;
	if (!number.startsWith(code)) return undefined;
	const shorter = extractNationalNumber(number.slice(code.length), plan);
	const whole = extractNationalNumber(number, plan);
	const pattern = plan.nationalNumberPattern;
	if ((!matchesEntirely(whole, pattern) && matchesEntirely(shorter, pattern)) || checkNumberLength(whole, plan) === 'TOO_LONG') {
		return { code, rest: number.slice(code.length) };
	}
	return undefined;
}

/** The number after an international call prefix (00…) of the default country, unless a 0 follows it. */
function stripIddPrefix(number: string, plan: Plan): string | undefined {
	if (!plan.IDDPrefix || number.search(regex(plan.IDDPrefix)) !== 0) return undefined;
	const rest = number.slice(regex(plan.IDDPrefix).exec(number)![0].length);
	return /\d/.exec(rest)?.[0] === '0' ? undefined : rest;
}

/** The calling code and the rest of `number`: {} when it has none (libphonenumber's extractCountryCallingCode). */
function callingCodeOf(number: string, defaultCountry: string | undefined): { code?: string; rest?: string } {
	if (!number) return {};
	if (number[0] !== '+') {
		const plan = defaultCountry ? planFor(defaultCountry) : undefined;
		const withoutIdd = plan && stripIddPrefix(number, plan);
		if (!withoutIdd || withoutIdd === number) return (plan && withoutPlusSign(number, plan)) ?? { rest: number };
		number = `+${withoutIdd}`;
	}
	if (number[1] === '0') return {};
	for (let end = 2; end - 1 <= 3 && end <= number.length; end++) {
		if (hasCallingCode(number.slice(1, end))) return { code: number.slice(1, end), rest: number.slice(end) };
	}
	return {};
}

/** Whether libphonenumber-js takes `text` (+ and digits) for a phone number at all (its isViablePhoneNumber). */
const viable = (text: string) => text.length <= MAX_INPUT_LENGTH && (/^\d{2}$/.test(text) || /^\+?\d{3,}$/.test(text));

class Parsed implements ParsedNumber {
	readonly number: string;
	constructor(
		private readonly code: string,
		private readonly national: string,
		readonly country: string | undefined,
	) {
		this.number = `+${code}${national}`;
	}

	private plan = () => planFor(this.country ?? this.code);

	isPossible(): boolean {
		const plan = this.plan();
		if (plan.possibleLengths) return checkNumberLength(this.national, plan) === 'IS_POSSIBLE';
		if (NON_GEOGRAPHIC.has(this.code)) return true;
		throw new Error('Missing "possibleLengths" in metadata.');
	}

	isValid(): boolean {
		const plan = this.plan();
		return plan.hasTypes ? numberType(this.national, plan) !== undefined : matchesEntirely(this.national, plan.nationalNumberPattern);
	}
}

/**
 * Reads `digits` (an optional leading + and digits only) as a phone number; `defaultCountry` is the
 * country of a national number. Undefined when it is not one (no such calling code, too short, too long).
 */
export function parsePhone(digits: string, defaultCountry?: string): ParsedNumber | undefined {
	// libphonenumber-js's parsePhoneNumberFromString reads a number without a country it does not know.
	if (defaultCountry && !PLANS[defaultCountry]) defaultCountry = undefined;
	if (!viable(digits)) return undefined;
	const found = callingCodeOf(digits, defaultCountry);
	let code = found.code;
	const rest = found.rest;
	let country: string | undefined;
	let plan: Plan;
	if (code) plan = planFor(code);
	else if (rest && defaultCountry) {
		country = defaultCountry;
		plan = planFor(defaultCountry);
		code = plan.callingCode;
	} else return undefined;
	if (!rest) return undefined;
	const national = extractNationalNumber(rest, plan);
	country = countryByCallingCode(code, national) ?? country;
	if (national.length < MIN_LENGTH_FOR_NSN || national.length > MAX_LENGTH_FOR_NSN) return undefined;
	return new Parsed(code, national, country);
}

/** The mobile plans of those of `countries` whose calling code is theirs alone and whose numbers are all mobile. */
export function mobilePlans(countries: string[]): MobilePlan[] {
	return countries.flatMap((country) => {
		const plan = PLANS[country];
		const mobile = plan?.types.MOBILE;
		if (!plan || CALLING_CODES[plan.callingCode]?.length !== 1 || plan.types.FIXED_LINE || !mobile?.pattern) return [];
		return [
			{
				country,
				callingCode: plan.callingCode,
				national: new RegExp(`^(?:${plan.nationalNumberPattern})$`),
				mobile: new RegExp(`^(?:${mobile.pattern})$`),
				lengths: mobile.possibleLengths ?? plan.possibleLengths ?? [],
			},
		];
	});
}
