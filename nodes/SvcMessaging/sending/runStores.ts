import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { REDIS_UNAVAILABLE, withErrorCode } from '../transport/errors';
import { RedisUnavailable, type SharedLimitConfig } from '../transport/redis';
import { claimsIn, localKeyStore, type KeyClaim, type KeyStore } from './keys/keyClaims';
import { durableKeyStore } from './keys/durableKeys';
import { inRedis } from '../stores/inRedis';
import { durableMarks, type ProcessedData } from './ledger/durableMarks';
import { openSendLedger, type RunIdentity, type SendLedger } from './ledger/ledger';
import { messageDigestOf, withDurableMarks } from './ledger/ledgerDurable';

/** What a send's stores are chosen by, read once from n8n's context (sendRun.ts). */
export interface StoreChoice {
	readonly identity: RunIdentity;
	/** the API-key credential's shared Redis: the ledger and the keys live there too */
	readonly shared?: SharedLimitConfig;
	/** n8n's processed-data helpers: the node's row, what a restart of n8n keeps */
	readonly rows: ProcessedData;
	readonly node: INode;
	readonly continueOnFail: boolean;
	/** Send and Wait follows each message by its ID (ledgerDurable.ts) */
	readonly followsMessages?: boolean;
}

/**
 * Where one send keeps what it must remember, chosen once from its credential and opened only when
 * used: this process with n8n's database (the node's row), or the credential's shared Redis with
 * n8n's database. The send ledger (ledger/), the Idempotency Key's claims (keys/) and the run's
 * finish go through here; nothing else picks a backend.
 */
export class RunStores {
	private keyStore: Promise<KeyStore> | undefined;

	constructor(private readonly choice: StoreChoice) {}

	private get scopeKey(): string {
		return `${this.choice.identity.workflowId}\u0000${this.choice.identity.nodeId}`;
	}

	/**
	 * The send ledger of an API-key send, with its marks in n8n's database. When its Redis cannot be
	 * reached the node fails before sending; with Continue On Fail the ledger stays in this process
	 * and each item then fails unsent at the (equally unreachable) shared limiter.
	 */
	async ledger(): Promise<SendLedger> {
		const { identity, shared, rows, followsMessages } = this.choice;
		const ledger = await this.openLedger(identity, shared);
		return withDurableMarks(ledger, identity, durableMarks(this.scopeKey, rows, messageDigestOf(identity)), { shared, followsMessages });
	}

	/** The ledger of a send by the account's login (campaigns): this process only. */
	async accountLedger(): Promise<SendLedger> {
		return await openSendLedger(this.choice.identity);
	}

	/** The Idempotency Key's claims, opened on first use: a run whose items have no key never connects for them. */
	keys(): KeyStore {
		const get = async () =>
			await (this.keyStore ??= this.openKeys().catch((error: unknown) => {
				this.keyStore = undefined;
				throw error;
			}));
		return {
			claim: async (asks, mine) => await (await get()).claim(asks, mine),
			peek: async (asks) => await (await get()).peek(asks),
			settle: async (ask, token, next) => await (await get()).settle(ask, token, next),
			// Never opens the store: a run that claimed nothing has nothing to store.
			stored: async () => await this.keyStore?.then(async (opened) => await opened.stored?.()).catch(() => undefined),
		};
	}

	private async openKeys(): Promise<KeyStore> {
		const { shared, rows } = this.choice;
		// A Redis may hold keys written by versions before the account's scope (up to 72 h): they count too.
		return shared ? claimsIn(await inRedis<KeyClaim>(shared, 'the idempotency keys'), true) : durableKeyStore(localKeyStore, this.scopeKey, rows);
	}

	/** The ledger in this process, and in the shared Redis when there is one. */
	private async openLedger(identity: RunIdentity, shared: SharedLimitConfig | undefined): Promise<SendLedger> {
		const { node, continueOnFail } = this.choice;
		try {
			return await openSendLedger(identity, shared);
		} catch (error) {
			// (a NodeOperationError is thrown as it is: its constructor returns it)
			if (!(error instanceof RedisUnavailable)) throw new NodeOperationError(node, error as Error);
			if (continueOnFail) return await openSendLedger(identity);
			throw withErrorCode(new NodeOperationError(node, error.message, { description: error.description }), REDIS_UNAVAILABLE);
		}
	}
}
