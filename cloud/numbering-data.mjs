#!/usr/bin/env node
/**
 * The Cloud edition's numbering data (issue 58), generated at build time from libphonenumber-js
 * (a dev dependency: the data follows the library's updates and never goes stale), so that
 * cloud/platform/phoneNumbers.ts answers as the self-hosted package's libphonenumber-js parse does,
 * without the library at run time.
 *
 * The data is libphonenumber-js's *mobile* metadata (the one the self-hosted package parses with),
 * read through the library's own Metadata API, without the formats: every calling code and, for
 * every country (and non-geographic calling code), the fields its parse, isPossible and isValid
 * read. The six supported countries (KE, NG, UG, TZ, RW, GH) alone decide which numbers are sent;
 * the others are kept because the self-hosted parse reads them too ("+44 (0)7911 …" becomes
 * +447911… in a Do-Not-Send entry, "+1 …" is told apart from "+12…"), so both editions give the
 * same results for every number.
 *
 * Usage: `node cloud/numbering-data.mjs <output.json>` (the Cloud build writes it next to the
 * cloud phoneNumbers module: <staging>/nodes/SvcMessaging/platform/numberingData.json).
 */
import { writeFileSync } from 'fs';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const require = createRequire(import.meta.url);
const { Metadata } = require('libphonenumber-js/core');
const metadataJson = require('libphonenumber-js/mobile/metadata');

/** The number types libphonenumber-js's getNumberType reads, in its order. */
export const TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];

/** One numbering plan (a country's, or a non-geographic calling code's), as the library reads it. */
function planOf(metadata, selector) {
	metadata.selectNumberingPlan(selector);
	const plan = metadata.numberingPlan;
	const types = {};
	for (const type of TYPES) {
		const found = plan.type(type);
		if (found) types[type] = { pattern: found.pattern() || '', possibleLengths: found.possibleLengths() || null };
	}
	return {
		callingCode: plan.callingCode(),
		IDDPrefix: plan.IDDPrefix() || null,
		nationalNumberPattern: plan.nationalNumberPattern(),
		possibleLengths: plan.possibleLengths() || null,
		nationalPrefix: plan.nationalPrefix() || null,
		nationalPrefixForParsing: plan.nationalPrefixForParsing() || null,
		nationalPrefixTransformRule: plan.nationalPrefixTransformRule() || null,
		leadingDigits: plan.leadingDigits() || null,
		hasTypes: plan.hasTypes(),
		types,
	};
}

/**
 * The numbering data: `callingCodes` (a country calling code → its countries, the main one first),
 * `nonGeographic` (the calling codes of no country, e.g. 800) and `plans` (by country, and by
 * calling code for the non-geographic ones). A missing field is null.
 */
export function numberingData() {
	const metadata = new Metadata(metadataJson);
	const plans = {};
	for (const country of Object.keys(metadataJson.countries)) plans[country] = planOf(metadata, country);
	for (const callingCode of Object.keys(metadataJson.nonGeographic ?? {})) plans[callingCode] = planOf(metadata, callingCode);
	const callingCodes = {};
	for (const callingCode of Object.keys(metadataJson.country_calling_codes)) {
		const countries = metadata.getCountryCodesForCallingCode(callingCode);
		if (countries) callingCodes[callingCode] = countries;
	}
	const nonGeographic = Object.keys(metadataJson.nonGeographic ?? {});
	return { source: `libphonenumber-js ${require('libphonenumber-js/package.json').version}, mobile metadata`, callingCodes, nonGeographic, plans };
}

export function writeNumberingData(path) {
	writeFileSync(path, JSON.stringify(numberingData()));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	if (!process.argv[2]) {
		console.error('usage: node cloud/numbering-data.mjs <output.json>');
		process.exit(2);
	}
	writeNumberingData(process.argv[2]);
}
