import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import { randomUUID } from 'crypto';

import { IDEMPOTENCY_KEY_HELD, mayHaveBeenProcessed, UNKNOWN_OUTCOME, withErrorCode } from '../../transport/errors';
import { current, KEY_CLAIMS, type KeyAsk, type KeyClaim, type KeyStore } from './keyClaims';
import type { ItemFailure, Outcome } from '../outcomes';

/** One item's key: as the user wrote it, its digest (scoped by the account: runKeys.ts keyAccountOf) and how long it holds. */
export interface ItemKey extends KeyAsk {
	key: string;
}

/** Options → Idempotency Key of a node run (its stage reads it before any request: runKeys.ts). */
export interface RunKeys {
	readonly store: KeyStore;
	readonly executionId: string;
	readonly workflowId: string;
	/** Send and Wait follows each message by its ID, which a key kept in n8n's database does not have */
	readonly followsMessages?: boolean;
	/** the item's key, its refusal (Continue On Fail), or undefined: no key */
	of(itemIndex: number): ItemKey | ItemFailure | undefined;
}

interface Unit {
	itemIndex: number;
	outcome?: Outcome;
}

/** The units of one key: one item's (readRunKeys refuses a key shared by several items). */
interface Group<U> {
	ask: ItemKey;
	owner: number;
	units: U[];
	/** claimed by this run: its units are posted */
	claimed?: boolean;
	left: number;
	started: boolean;
	/** the accepted outputs of its posts, in order */
	accepted?: IDataObject[];
	/** a post may have reached the service unanswered */
	unknown?: boolean;
}

/** A key sent by an earlier run: its first output as it was, marked, and where it came from. */
function repeated(claim: KeyClaim, key: string, position: number): IDataObject {
	const first = claim.results?.[position] ?? (claim.durable ? { accepted: true, note: 'n8n’s database keeps only that this key was sent, not its output (message ID)' } : { accepted: true });
	const sentIn = claim.durable ? { executionId: 'unknown (before n8n restarted)' } : { executionId: claim.executionId, workflowId: claim.workflowId, at: claim.sentAt };
	return { alreadySent: true, ...first, idempotencyKey: key, sentIn };
}

function refusal(node: INode, itemIndex: number, message: string, description: string, code: string): ItemFailure {
	return { ok: false, itemIndex, error: withErrorCode(new NodeOperationError(node, `Item ${itemIndex}: ${message}`, { itemIndex, description }), code) };
}

const since = (claim: KeyClaim) => `execution ${claim.executionId} at ${new Date(claim.at).toISOString()}`;

/**
 * Claims the keys of the units about to be posted (sending/round.ts, after the ledger): a key
 * held with a result answers its units `alreadySent`; one in progress elsewhere is waited for
 * (KEY_CLAIMS.waitMs), then refused; one of unknown outcome is refused unless "Resend Messages
 * With Unknown Outcome" takes it over. Answers the units to post; `settle` records each post's
 * result under its key, `end` releases the keys whose units were never posted.
 */
export async function claimKeys<U extends Unit>(node: INode, keys: RunKeys, units: U[], resendUnknown: boolean) {
	const groups = new Map<string, Group<U>>();
	const post: U[] = [];
	const keyOf = (unit: U) => {
		const ask = keys.of(unit.itemIndex);
		return ask && !('ok' in ask) ? ask : undefined;
	};
	for (const unit of units) {
		const ask = keys.of(unit.itemIndex);
		if (!ask) post.push(unit);
		else if ('ok' in ask) unit.outcome = ask;
		else {
			const group = groups.get(ask.digest);
			// Every field set here: one added later moves the object's fields to a separate, larger store.
			if (!group) groups.set(ask.digest, { ask, owner: unit.itemIndex, units: [unit], claimed: false, left: 0, started: false, accepted: undefined, unknown: false });
			else if (group.owner === unit.itemIndex) group.units.push(unit);
			// (readRunKeys refuses a key shared by items; kept closed should another caller hand one over.)
			else unit.outcome = refusal(node, unit.itemIndex, `Idempotency Key "${ask.key}" is also item ${group.owner}'s`, 'Nothing was sent for this item: one message per key.', IDEMPOTENCY_KEY_HELD);
		}
	}
	/** the group whose units this run posts */
	const claimedGroupOf = (unit: U) => {
		const ask = keyOf(unit);
		const group = ask && groups.get(ask.digest);
		return group?.claimed && group.owner === unit.itemIndex ? group : undefined;
	};
	const answer = (group: Group<U>, make: (position: number, itemIndex: number) => Outcome) => {
		group.units.forEach((unit, position) => (unit.outcome = make(position, unit.itemIndex)));
	};
	const claimGroup = (group: Group<U>) => {
		group.left = group.units.length;
		group.claimed = true;
		post.push(...group.units);
	};
	const mine: KeyClaim = { state: 'pending', token: randomUUID(), executionId: keys.executionId, workflowId: keys.workflowId, at: Date.now() };
	const waitUntil = Date.now() + KEY_CLAIMS.waitMs;
	let open = [...groups.values()];
	while (open.length > 0) {
		const held = await keys.store.claim(
			open.map((g) => g.ask),
			mine,
		);
		const waiting: Array<Group<U>> = [];
		for (const [n, group] of open.entries()) {
			const claim = current(held[n]);
			const { key } = group.ask;
			if (!claim) claimGroup(group);
			else if (claim.state === 'sent' && claim.durable && keys.followsMessages) {
				answer(group, (_, i) =>
					refusal(node, i, `the message of Idempotency Key "${key}" was sent by an earlier execution, and n8n’s database keeps no message ID, so its delivery cannot be followed`, 'It is not sent again. The dashboard’s message log shows its delivery.', UNKNOWN_OUTCOME),
				);
			} else if (claim.state === 'sent') {
				answer(group, (position) => ({ ok: true, json: repeated(claim, key, position) }));
			} else if (claim.state === 'unknown' && resendUnknown && !claim.stale && (await keys.store.settle(group.ask, claim.token, mine))) {
				// (A claim merely left in progress is not taken over: its execution may still be sending it.)
				claimGroup(group);
			} else if (claim.state === 'unknown') {
				const where = claim.durable ? 'an earlier execution (kept in n8n’s database)' : since(claim);
				answer(group, (_, i) =>
					refusal(node, i, `the message of Idempotency Key "${key}" may already have been sent (${claim.message ?? 'its outcome is unknown'}; ${where})`, `It is not sent again, so that nobody gets it twice. Check the message log in the dashboard; to send it anyway, ${claim.stale ? 'use another key' : 'turn on "Resend Messages With Unknown Outcome", or use another key'}.`, UNKNOWN_OUTCOME),
				);
			} else if (Date.now() < waitUntil) waiting.push(group);
			else {
				answer(group, (_, i) =>
					refusal(node, i, `the message of Idempotency Key "${key}" is being sent by ${since(claim)}, which has not answered yet`, `Nothing was sent for this item (waited ${KEY_CLAIMS.waitMs / 1000} s). Run it again later: it then returns that message with alreadySent: true.`, IDEMPOTENCY_KEY_HELD),
				);
			}
		}
		open = waiting;
		if (open.length > 0) await sleep(KEY_CLAIMS.pollMs);
	}
	// Post in the units' order (Send Bulk's chunks follow it).
	const order = new Map(units.map((unit, n) => [unit, n]));
	post.sort((a, b) => order.get(a)! - order.get(b)!);

	const settleGroup = async (group: Group<U>, sentAt: string) => {
		const accepted = group.accepted;
		let next: KeyClaim | undefined;
		const results = accepted && accepted.length > KEY_CLAIMS.maxResults ? accepted.slice(0, KEY_CLAIMS.maxResults) : accepted;
		// Kept for every key: written out, not spread (a spread copy is a dictionary object, ~450 bytes against ~160).
		const { token, executionId, workflowId, at } = mine;
		if (results) next = { state: 'sent', token, executionId, workflowId, at, sentAt, results };
		else if (group.unknown) next = { ...mine, state: 'unknown', message: 'its answer was lost (a timeout, a dropped connection or a server error)' };
		// A settle that does not reach the store leaves the claim in progress: later read as unknown, never sent twice.
		await keys.store.settle(group.ask, mine.token, next).catch(() => undefined);
	};
	return {
		post,
		/** the units of a post are under way: their keys are no longer released if the run stops */
		started(posted: U[]) {
			for (const unit of posted) {
				const group = claimedGroupOf(unit);
				if (group) group.started = true;
			}
		},
		async settle(posted: Array<[U, Outcome]>) {
			const done: Array<Group<U>> = [];
			for (const [unit, outcome] of posted) {
				const group = claimedGroupOf(unit);
				if (!group) continue;
				// A literal, not a push onto []: an array grown by push reserves room for 17, and most keys have one message.
				if (outcome.ok && group.accepted) group.accepted.push(outcome.json);
				else if (outcome.ok) group.accepted = [outcome.json];
				else if (mayHaveBeenProcessed(outcome.error)) group.unknown = true;
				if (--group.left === 0) done.push(group);
			}
			// One time for the whole batch: a string per key is memory kept for as long as the key.
			const sentAt = new Date().toISOString();
			for (const group of done) await settleGroup(group, sentAt);
		},
		/** Releases the keys of units never posted (a refused budget, a lost Redis, a stopped campaign run). */
		async end() {
			for (const group of groups.values()) {
				if (!group.claimed || group.started) continue;
				await keys.store.settle(group.ask, mine.token, undefined).catch(() => undefined);
			}
		},
	};
}

/** Dry Run: each unit's key and whether it is already used; nothing claimed. */
export async function peekKeys<U extends Unit>(keys: RunKeys, units: U[]): Promise<void> {
	const keyed: Array<{ unit: U; ask: ItemKey }> = [];
	for (const unit of units) {
		const ask = keys.of(unit.itemIndex);
		if (ask && 'ok' in ask) unit.outcome = ask;
		else if (ask && unit.outcome?.ok) keyed.push({ unit, ask });
	}
	if (keyed.length === 0) return;
	const held = await keys.store.peek(keyed.map((k) => k.ask));
	keyed.forEach(({ unit, ask }, n) => {
		const claim = current(held[n]);
		const json = (unit.outcome as { json: IDataObject }).json;
		json.idempotencyKey = ask.key;
		json.keyAlreadyUsed = claim !== undefined;
		if (claim) json.keyUsedIn = claim.durable ? { executionId: 'unknown (before n8n restarted)' } : { executionId: claim.executionId, workflowId: claim.workflowId, at: new Date(claim.at).toISOString(), state: claim.state };
	});
}
