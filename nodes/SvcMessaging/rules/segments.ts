import { SMS_LIMITS } from '../transport/service';
import { describeCharacter, gsm7Length, unicodeCause } from './gsm7';
import { characters as codePoints } from './schemas';

export interface MessageStats {
	encoding: 'GSM-7' | 'Unicode';
	/** Unicode code points: what the 1600-character limit counts. */
	characters: number;
	segments: number;
	credits: number;
}

/** Segment and credit estimate as the spec states it: 160 per segment, 70 with Unicode, 1 credit each. */
export function analyzeMessage(text: string): MessageStats {
	const septets = gsm7Length(text);
	if (septets !== undefined) {
		const segments = Math.max(1, Math.ceil(septets / SMS_LIMITS.gsmSegmentSize));
		return { encoding: 'GSM-7', characters: text.length, segments, credits: segments };
	}
	const characters = codePoints(text);
	const segments = Math.max(1, Math.ceil(text.length / SMS_LIMITS.unicodeSegmentSize));
	return { encoding: 'Unicode', characters, segments, credits: segments };
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

/** Characters named in the Unicode hint at most; the rest are counted. */
const NAMED_CHARACTERS = 8;

/**
 * The hint for messages that are Unicode because of a few characters, when they cost more than
 * the same messages without them: which characters, and the credits with and without them (all
 * messages together). Look-alikes count as replaced by their GSM-7 equivalents, other characters
 * (emoji, other scripts) as left out. Undefined when no message would cost less.
 */
export function unicodeCostNote(messages: string[], replacing: boolean): string | undefined {
	const seen = new Map<string, number>();
	for (const m of messages) seen.set(m, (seen.get(m) ?? 0) + 1);
	const characters = new Set<string>();
	let lookalikes = 0;
	let unicodeMessages = 0;
	let withThem = 0;
	let withoutThem = 0;
	for (const [text, count] of seen) {
		const cause = unicodeCause(text);
		if (!cause) continue;
		const credits = analyzeMessage(text).credits;
		const fewer = analyzeMessage(cause.withoutThem).credits;
		if (fewer >= credits) continue;
		unicodeMessages += count;
		withThem += credits * count;
		withoutThem += fewer * count;
		lookalikes += cause.lookalikes.length;
		for (const c of cause.characters) characters.add(c);
	}
	if (!unicodeMessages) return undefined;
	const listed = [...characters].slice(0, NAMED_CHARACTERS).map(describeCharacter).join(', ');
	const more = characters.size > NAMED_CHARACTERS ? ` and ${characters.size - NAMED_CHARACTERS} more` : '';
	const which = messages.length === 1 ? 'The message is' : `${unicodeMessages} of ${messages.length} messages are`;
	const advice =
		lookalikes && !replacing
			? ' Turn on Options → Replace Look-Alike Characters to send the plain GSM-7 equivalents of quotes, dashes, ellipses and spaces.'
			: ' Remove them (or accept the cost) to send GSM-7.';
	return `${which} sent as Unicode (70 characters per segment instead of 160) because of ${listed}${more}: ${withThem} credit${withThem === 1 ? '' : 's'}; without them ${withoutThem}.${advice}`;
}
