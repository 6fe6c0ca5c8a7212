import { SMS_LIMITS } from '../transport/service';

// GSM 03.38 default alphabet and its extension table (each extension character takes two septets).
const GSM_BASIC = new Set(
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

export interface MessageStats {
	encoding: 'GSM-7' | 'Unicode';
	/** Unicode code points: what the 1600-character limit counts. */
	characters: number;
	segments: number;
	credits: number;
}

/** Segment and credit estimate as the spec states it: 160 per segment, 70 with Unicode, 1 credit each. */
export function analyzeMessage(text: string): MessageStats {
	let septets = 0;
	let characters = 0;
	let gsm = true;
	for (const char of text) {
		characters++;
		if (!gsm) continue;
		if (GSM_BASIC.has(char)) septets += 1;
		else if (GSM_EXTENSION.has(char)) septets += 2;
		else gsm = false;
	}
	const segments = gsm
		? Math.max(1, Math.ceil(septets / SMS_LIMITS.gsmSegmentSize))
		: Math.max(1, Math.ceil(text.length / SMS_LIMITS.unicodeSegmentSize));
	return { encoding: gsm ? 'GSM-7' : 'Unicode', characters, segments, credits: segments };
}

/** A `{{name}}` placeholder (global: use with replace or matchAll). */
export const PLACEHOLDER = /\{\{([A-Za-z0-9_]+)\}\}/g;

/** Names of the `{{name}}` placeholders in a bulk message, in order of first use. */
export function placeholdersOf(message: string): string[] {
	return [...new Set([...message.matchAll(PLACEHOLDER)].map((match) => match[1]))];
}

/** The text one recipient receives, for the segment estimate of a bulk send. */
export function fillPlaceholders(message: string, variables: Record<string, unknown>): string {
	return message.replace(PLACEHOLDER, (whole, name: string) =>
		variables[name] === undefined ? whole : String(variables[name]),
	);
}
