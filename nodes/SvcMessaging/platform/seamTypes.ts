/**
 * The shapes both editions' seams answer in (nodes/SvcMessaging/platform/ and cloud/platform/): one
 * declaration, so the two implementations cannot drift apart. `npm run build:cloud` overlays only the
 * seams themselves; this file stays, and a Cloud seam's import of it
 * (`../../nodes/SvcMessaging/platform/seamTypes`) is rewritten to `./seamTypes` in the build.
 */

/** A number as libphonenumber-js's parse reads it (`parsePhoneNumberFromString(text, defaultCountry)`). */
export interface ParsedNumber {
	/** E.164: + the calling code + the national number (a national prefix taken off). */
	readonly number: string;
	/** The country the number belongs to, when its calling code and digits tell one. */
	readonly country?: string;
	/** Whether its length is one its calling code's numbering plan allows. */
	isPossible(): boolean;
	/** Whether it is a valid mobile number of its country (mobile metadata). */
	isValid(): boolean;
}

/** A country's rules for a valid mobile number: national and mobile patterns (whole), mobile lengths. */
export interface MobilePlan {
	country: string;
	callingCode: string;
	national: RegExp;
	mobile: RegExp;
	lengths: number[];
}

interface TypeNames {
	name: string;
	displayName: string;
}

/** What differs between the two packages' names and parts (platform/edition.ts). */
export interface Edition {
	/** the npm package: the first half of each node type (`<package>.<name>`) */
	packageName: string;
	action: TypeNames;
	trigger: TypeNames;
	apiKeyCredential: TypeNames;
	accountCredential: TypeNames;
	/**
	 * Whether Redis is offered: the credential's "Use Redis" and its fields, the Do-Not-Send List
	 * resource (the list kept in Redis) and the trigger's "Add BLACKLISTED Numbers to the List".
	 */
	redis: boolean;
}
