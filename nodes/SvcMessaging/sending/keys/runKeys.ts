import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemList } from '../../rules/errorText';
import { checkIdempotencyKey, checkRememberHours } from '../../rules/idempotencyKey';
import { baseUrlOf, isSandboxKey } from '../../transport/credentials';
import { INVALID_INPUT, withErrorCode, wrapError } from '../../transport/errors';
import { digest } from '../../transport/redis';
import { sharedLimitOf } from '../../transport/redisConfig';
import type { ItemKey, RunKeys } from './idempotency';
import type { ItemFailure } from '../outcomes';
import type { RunIdentity } from '../ledger/ledger';
import type { KeyStore } from './keyClaims';

/** What the keys read of their run (the round's RunSource, stages/stage.ts, is one). */
export interface KeySource {
	readonly node: INode;
	readonly continueOnFail: boolean;
	/** Options of the first item: whether the option is set at all */
	readonly options: IDataObject;
	readonly items: number;
	parameter(path: string, itemIndex: number, fallback: unknown): unknown;
	readonly identity: RunIdentity;
	readonly followsMessages: boolean;
	credentials(): Promise<IDataObject>;
	readonly keyStore: KeyStore;
}

/**
 * The account a run's keys belong to (docs/assumptions.md), never its API key: a rotated key keeps
 * them. The service names no account to an API key, so it is the service's address and the key's
 * kind (a sandbox key's sends were not real), and where the keys live: with the shared Redis, its
 * Redis Key Prefix, as for the Do-Not-Send List (an account per prefix); without it, this n8n and
 * the n8n credential (`credentialId`: two accounts' credentials on one Base URL in one n8n must not
 * answer each other's keys, nor see each other's results; a key rotated in the credential keeps
 * them). The account login (campaigns) is the account: its email. `former` is the scope before (the
 * API key), whose keys a Redis still holds for up to 72 hours after an upgrade.
 */
export function keyAccountOf(credentials: IDataObject, credentialId = ''): { account: string; former: string } {
	const base = baseUrlOf(credentials);
	const login = `account\u0000${String(credentials.email ?? '')}`;
	const former = digest(`${base}\u0000${String(credentials.apiKey ?? login)}`);
	if (credentials.apiKey === undefined) return { account: digest(`${base}\u0000${login}`), former };
	const kind = isSandboxKey(credentials) ? 'sandbox' : 'live';
	const where = sharedLimitOf(credentials) ? '' : `\u0000credential\u0000${credentialId}`;
	return { account: digest(`${base}\u0000${kind}${where}`), former };
}

/** The n8n credential the node uses (its id is kept when the user edits the key in it). */
const credentialIdOf = (node: INode) => Object.values(node.credentials ?? {}).map((c) => c.id ?? c.name).sort().join(',');

/**
 * Options → Idempotency Key and Remember Key For (Hours) of every item, read and checked before
 * any request (undefined when the option is not set: nothing is read per item). Keys are scoped by
 * the account (keyAccountOf): the same key from any workflow on the account is the same event. The
 * claims live where the run's stores are (stores/runStores.ts).
 */
export async function readRunKeys(source: KeySource): Promise<RunKeys | undefined> {
	if (!('idempotencyKey' in source.options)) return undefined;
	const { node } = source;
	const { account, former } = keyAccountOf(await source.credentials(), credentialIdOf(node));
	const items: Array<ItemKey | ItemFailure> = [];
	for (let i = 0; i < source.items; i++) {
		try {
			const key = checkIdempotencyKey(node, source.parameter('options.idempotencyKey', i, ''), i);
			const hours = checkRememberHours(node, source.parameter('options.rememberKeyHours', i, ''), i);
			items.push({ key, account, formerAccount: former, digest: digest(`${account}\u0000${key}`), ttlMs: Math.round(hours * 3600_000) });
		} catch (error) {
			const refused = wrapError({ getNode: () => node }, error, i);
			if (!source.continueOnFail) throw refused;
			items.push({ ok: false, itemIndex: i, error: refused });
		}
	}
	refuseSharedKeys(source, items);
	const { identity, followsMessages } = source;
	return { store: source.keyStore, executionId: identity.executionId, workflowId: identity.workflowId, followsMessages, of: (i) => items[i] };
}

/**
 * One key on several items of a run (a fixed text, or an expression that gives the same value) is
 * a mistake, not one event for all of them: only the first item's message would go, and the others
 * would show its result. Every item that shares a key is refused before any request, naming the
 * items and a per-item key. (One item's several recipients, Send Bulk's list, share its one key.)
 */
function refuseSharedKeys(source: KeySource, items: Array<ItemKey | ItemFailure>): void {
	const byDigest = new Map<string, number[]>();
	items.forEach((ask, i) => {
		if ('ok' in ask) return;
		const same = byDigest.get(ask.digest);
		if (same) same.push(i);
		else byDigest.set(ask.digest, [i]);
	});
	for (const sharing of byDigest.values()) {
		if (sharing.length < 2) continue;
		const { key } = items[sharing[0]] as ItemKey;
		const refusal = (first: number) =>
			withErrorCode(
				new NodeOperationError(source.node, `Items ${itemList(sharing)} share Idempotency Key ${JSON.stringify(key)}: a key must name one message, so all but the first would not be sent`, {
					itemIndex: first,
					description: 'Nothing was sent for these items. Make the key different for each item with an expression, e.g. {{ $json.orderId }}-{{ $json.phone }} (Options → Idempotency Key).',
				}),
				INVALID_INPUT,
			);
		if (!source.continueOnFail) throw refusal(sharing[0]);
		for (const i of sharing) items[i] = { ok: false, itemIndex: i, error: refusal(i) };
	}
}
