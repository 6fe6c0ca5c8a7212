import { messageIdentities } from '../../sending/ledger/ledger';
import { hashOf } from '../../sending/ledger/runIndex';
import { variablesOf, type Group, type Recipient } from './bulkRecipients';

/**
 * Each recipient's identity in the send ledger: what was sent to it (number, message body digest,
 * placeholder values), numbered among repeats, so that a retry recognises every message it sent.
 */

/**
 * What was sent to the recipient, for the send ledger: number, message body (digest) and the
 * placeholder values (so the final text). messageIdentities() numbers repeats.
 */
export function recipientPayload(r: Recipient): string {
	const variables = variablesOf(r);
	let text = `${r.phoneNumber}\u0000${r.group.id}\u0000`;
	if (variables) r.group.placeholders.forEach((name, n) => (text += n ? `\u0001${variables[name] ?? ''}` : (variables[name] ?? '')));
	return text;
}

/**
 * V8 keeps a string built with `+` or a template as a tree of its parts (32 bytes a node, each
 * part kept) until it is read by position; reading one character makes it one flat string. The
 * ledger keeps every recipient's identity: flat, they take a third of the memory.
 */
export function flattened(text: string): string {
	text.charCodeAt(0);
	return text;
}

/** 32-bit FNV-1a of the number and its group: equal for every repeat, rarely for two others. */
const numberHash = (r: Recipient, groupNumber: number) => hashOf(r.phoneNumber, (0x811c9dc5 ^ groupNumber) >>> 0);

/** Recipients in this many or more are told apart by a Set (hash and position no longer fit in a double). */
const SORTABLE_LIMIT = 2 ** 21;

/**
 * Which recipients share their number with another of the same message (a repeat), and how many
 * extra appearances there are. Sorting (hash, position) pairs in a typed array and checking equal
 * hashes exactly costs 8 bytes a recipient outside the heap; a Set of 100,000 numbers cost ~5 MB
 * of heap (and as much again in the tables it outgrew), kept until a full GC.
 */
function findRepeats(recipients: Recipient[]): { isRepeat: Uint8Array; repeated: number } {
	const isRepeat = new Uint8Array(recipients.length);
	let repeated = 0;
	const groupNumbers = new Map<Group, number>();
	const groupOf = (r: Recipient) => groupNumbers.get(r.group) ?? groupNumbers.set(r.group, groupNumbers.size).size - 1;
	const mark = (candidates: number[]) => {
		const first = new Map<string, number>();
		for (const n of candidates) {
			const r = recipients[n];
			const key = `${groupOf(r)}\u0000${r.phoneNumber}`;
			const seen = first.get(key);
			if (seen === undefined) first.set(key, n);
			else {
				repeated++;
				isRepeat[seen] = 1;
				isRepeat[n] = 1;
			}
		}
	};
	if (recipients.length >= SORTABLE_LIMIT) {
		mark(recipients.map((_, n) => n));
		return { isRepeat, repeated };
	}
	const pairs = new Float64Array(recipients.length);
	recipients.forEach((r, n) => (pairs[n] = numberHash(r, groupOf(r)) * SORTABLE_LIMIT + n));
	pairs.sort();
	for (let start = 0; start < pairs.length; ) {
		const hash = Math.floor(pairs[start] / SORTABLE_LIMIT);
		let end = start + 1;
		while (end < pairs.length && Math.floor(pairs[end] / SORTABLE_LIMIT) === hash) end++;
		if (end - start > 1) mark(Array.from(pairs.subarray(start, end), (pair) => pair % SORTABLE_LIMIT));
		start = end;
	}
	return { isRepeat, repeated };
}

/**
 * Each recipient's key in the send ledger: what was sent, repeats numbered as messageIdentities()
 * numbers them, as one flat string. Only a number that appears more than once with the same message
 * can repeat a payload: the others are the first and only of theirs (`#0`), so only the repeats go
 * through the numbering. Returns the count of repeated numbers.
 */
export function assignIdentities(recipients: Recipient[]): number {
	const { isRepeat, repeated } = findRepeats(recipients);
	const repeats: Recipient[] = [];
	recipients.forEach((r, n) => {
		if (isRepeat[n]) repeats.push(r);
		else r.identity = flattened(`${recipientPayload(r)}\u0000#0`);
	});
	const identities = messageIdentities(repeats.map(recipientPayload));
	repeats.forEach((r, n) => (r.identity = flattened(identities[n])));
	return repeated;
}
