import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { withValue } from '../../rules/errorText';
import { normalizePhoneNumber } from '../../rules/phone';
import { INVALID_INPUT, withErrorCode } from '../../transport/errors';
import type { SharedLimitConfig } from '../../transport/redis';
import { DO_NOT_SEND, doNotSendStore } from './doNotSendStore';
import { withoutCost, type ItemFailure } from '../outcomes';

/**
 * The do-not-send list of a send: numbers that are never posted to. Two stores, either or both:
 * the credential's shared Redis (doNotSendStore.ts; checked by every send of such a credential,
 * in batches) and "Do-Not-Send List → Numbers", the list the workflow hands over itself (e.g.
 * mapped from an n8n Data Table's rows), read ONCE per run into a set. Both hold E.164 numbers,
 * so `0712…` (with Default Country) and `+254712…` are one number.
 */
export interface DoNotSend {
	readonly numbers?: ReadonlySet<string>;
	readonly redis?: SharedLimitConfig;
}

export const NUMBERS_LABEL = 'Do-Not-Send List → Numbers';

/** Numbers in a text: separated by commas, semicolons or new lines. */
const SEPARATOR = /[,;\n\r]+/;

/**
 * "Do-Not-Send List → Numbers" of the run (its first item's value), as E.164: a text of numbers
 * or an array of them. An entry that is not a phone number refuses the whole send, nothing sent:
 * an opt-out read wrongly would let a message through.
 */
export function readDoNotSendNumbers(node: INode, value: unknown, defaultCountry: string | undefined): Set<string> | undefined {
	const entries = Array.isArray(value) ? value.flat(2) : typeof value === 'string' ? value.split(SEPARATOR) : value == null ? [] : [value];
	const numbers = new Set<string>();
	entries.forEach((entry, n) => {
		if (entry == null || (typeof entry === 'string' && entry.trim() === '')) return;
		const value: unknown = typeof entry === 'string' ? entry.trim() : entry;
		const result = normalizePhoneNumber(value, defaultCountry, 'complete');
		if (!result.ok) {
			const error = new NodeOperationError(node, `Item 0: "${NUMBERS_LABEL}" entry ${n + 1} ${withValue(result.rule, value)}`, {
				itemIndex: 0,
				description: 'Nothing was sent. Each entry must be a phone number: E.164, or national with Options → Default Country set.',
			});
			throw withErrorCode(error, INVALID_INPUT);
		}
		numbers.add(result.e164);
	});
	return numbers.size ? numbers : undefined;
}

export interface ListedUnit {
	outcome?: { ok: true; json: IDataObject } | ItemFailure;
}

/**
 * Marks each unit whose number is listed: its outcome is an output item, not sent (`suppressed:
 * true` and why), never an error. The Redis list is asked in batches of DO_NOT_SEND.batch numbers;
 * a Redis that cannot answer throws RedisUnavailable (the round then fails the units unsent).
 * Answers how many units were suppressed.
 */
export async function suppressListed<U extends ListedUnit>(
	list: DoNotSend,
	units: U[],
	recipientOf: (unit: U) => string,
	price: (unit: U) => IDataObject,
): Promise<number> {
	let suppressed = 0;
	const suppress = (unit: U, where: string) => {
		// What would have been posted, without its cost or send time: nothing is charged or scheduled.
		const json = withoutCost(price(unit));
		unit.outcome = { ok: true, json: { ...json, accepted: false, sent: false, suppressed: true, reason: `The number is on the do-not-send list (${where})` } };
		suppressed++;
	};
	if (list.numbers) for (const unit of units) if (!unit.outcome && list.numbers.has(recipientOf(unit))) suppress(unit, NUMBERS_LABEL);
	if (list.redis) {
		const store = await doNotSendStore(list.redis);
		let batch: U[] = [];
		const ask = async () => {
			const listed = await store.listed(batch.map(recipientOf));
			batch.forEach((unit, n) => listed[n] && suppress(unit, "the credential's Redis"));
			batch = [];
		};
		for (const unit of units) {
			if (unit.outcome) continue;
			batch.push(unit);
			if (batch.length === DO_NOT_SEND.batch) await ask();
		}
		if (batch.length) await ask();
	}
	return suppressed;
}

/** A unit with many numbers and one post (a campaign's manual numbers): the listed ones are taken out. */
export interface NumbersOfUnit<U> {
	numbersOf: (unit: U) => string[];
	/** keeps only `kept` (`dropped` were listed); not called when nothing is listed */
	keepOnly: (unit: U, kept: string[], dropped: string[]) => void;
	/** the unit reaches others too (contact groups): it is still posted when all its numbers are listed */
	reachesOthers: (unit: U) => boolean;
}

/**
 * The listed numbers of each unit are taken out; a unit left with no one to send to is suppressed
 * as a whole (`suppressed: true`). Answers how many numbers were taken out.
 */
export async function suppressWithin<U extends ListedUnit>(list: DoNotSend, units: U[], of: NumbersOfUnit<U>, price: (unit: U) => IDataObject): Promise<number> {
	const store = list.redis ? await doNotSendStore(list.redis) : undefined;
	let dropped = 0;
	for (const unit of units) {
		if (unit.outcome) continue;
		const numbers = of.numbersOf(unit);
		const listed = new Set(list.numbers ? numbers.filter((number) => list.numbers!.has(number)) : []);
		for (let start = 0; store && start < numbers.length; start += DO_NOT_SEND.batch) {
			const batch = numbers.slice(start, start + DO_NOT_SEND.batch);
			(await store.listed(batch)).forEach((on, n) => on && listed.add(batch[n]));
		}
		if (listed.size === 0) continue;
		dropped += listed.size;
		if (listed.size === numbers.length && !of.reachesOthers(unit)) {
			const json = withoutCost(price(unit));
			unit.outcome = { ok: true, json: { ...json, sent: false, suppressed: true, suppressedNumbers: [...listed], reason: 'Every number is on the do-not-send list' } };
		} else {
			of.keepOnly(unit, numbers.filter((number) => !listed.has(number)), [...listed]);
		}
	}
	return dropped;
}

/** The execution hint of a send that suppressed numbers. */
export function suppressedNote(count: number): string {
	return `${count} message${count === 1 ? ' was' : 's were'} not sent: the number${count === 1 ? ' is' : 's are'} on the do-not-send list (suppressed: true in the output).`;
}
