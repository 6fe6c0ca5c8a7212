/**
 * Options → Idempotency Key: the option's field rules (rules/idempotencyKey.ts) and the claims in
 * this process (sending/keys/keyClaims.ts): one claim per key, settled only by its holder.
 */
import type { INode } from 'n8n-workflow';

import { checkIdempotencyKey, checkRememberHours } from '../../nodes/SvcMessaging/rules/idempotencyKey';
import { claimKeys, type RunKeys } from '../../nodes/SvcMessaging/sending/keys/idempotency';
import { clearLocalKeys, current, KEY_CLAIMS, localKeyStore, type KeyClaim, type KeyStore } from '../../nodes/SvcMessaging/sending/keys/keyClaims';
import { durableKeyStore } from '../../nodes/SvcMessaging/sending/keys/durableKeys';
import type { ProcessedData } from '../../nodes/SvcMessaging/sending/ledger/durableMarks';
import type { Outcome } from '../../nodes/SvcMessaging/sending/outcomes';

const node = { name: 'SVC Messaging' } as INode;
const refusal = (check: () => unknown) => {
	try {
		check();
	} catch (error) {
		return (error as Error).message;
	}
	return 'accepted';
};

describe('Idempotency Key: the field rules', () => {
	it('takes any text that shows, as typed, and numbers', () => {
		expect(checkIdempotencyKey(node, 'order-1234-shipped', 0)).toBe('order-1234-shipped');
		expect(checkIdempotencyKey(node, ' Order 12 ', 0)).toBe(' Order 12 ');
		expect(checkIdempotencyKey(node, 1234, 0)).toBe('1234');
	});

	it.each([
		['', 'Item 2: "Idempotency Key" must not be empty'],
		['   ', 'Item 2: "Idempotency Key" must not be empty'],
		['\u200b', 'Item 2: "Idempotency Key" must contain a visible character (it has only spaces, zero-width characters or direction marks) (got "\u200b")'],
		['k'.repeat(501), `Item 2: "Idempotency Key" must be at most 500 characters (it has 501) (got "${'k'.repeat(39)}…")`],
		[{ id: 1 }, 'Item 2: "Idempotency Key" must be text, not an object'],
		['order-{{ $json.id }}-shipped', 'Item 2: "Idempotency Key" must be an expression (starting with =) when it holds {{ … }}: as fixed text it is the same key for every item (got "order-{{ $json.id }}-shipped")'],
	])('refuses %j, naming the item, the field, the value and the rule', (value, message) => {
		expect(refusal(() => checkIdempotencyKey(node, value, 2))).toBe(message);
	});

	it('Remember Key For (Hours): 1 to 72, empty is 24', () => {
		expect(checkRememberHours(node, '', 0)).toBe(24);
		expect(checkRememberHours(node, undefined, 0)).toBe(24);
		expect(checkRememberHours(node, 1, 0)).toBe(1);
		expect(checkRememberHours(node, '72', 0)).toBe(72);
		expect(checkRememberHours(node, 1.5, 0)).toBe(1.5);
	});

	it.each([0, 0.5, 73, -1, 'ten', true])('Remember Key For (Hours) refuses %j', (value) => {
		expect(refusal(() => checkRememberHours(node, value, 3))).toMatch(/^Item 3: "Remember Key For \(Hours\)" must be a number of hours from 1 to 72/);
	});
});

describe('Idempotency Key: claims in this process', () => {
	afterEach(clearLocalKeys);
	const claim = (token: string, at = Date.now()): KeyClaim => ({ state: 'pending', token, executionId: `e-${token}`, workflowId: 'w', at });
	const ask = { account: 'a', digest: 'd1', ttlMs: 60_000 };

	it('one claim per key: the second claimant gets the holder, who alone settles or releases it', async () => {
		expect(await localKeyStore.claim([ask], claim('a'))).toEqual([undefined]);
		const [held] = await localKeyStore.claim([ask], claim('b'));
		expect(held).toMatchObject({ token: 'a', state: 'pending' });
		expect(await localKeyStore.settle(ask, 'b', undefined)).toBe(false);
		expect(await localKeyStore.settle(ask, 'a', { ...claim('a'), state: 'sent', results: [{ messageId: 'm1' }] })).toBe(true);
		expect((await localKeyStore.peek([{ account: 'a', digest: 'd1', ttlMs: 1 }]))[0]).toMatchObject({ state: 'sent', results: [{ messageId: 'm1' }] });
		expect(await localKeyStore.settle(ask, 'a', undefined)).toBe(true);
		expect(await localKeyStore.claim([ask], claim('c'))).toEqual([undefined]);
	});

	it('a key is forgotten after its time', async () => {
		await localKeyStore.claim([{ account: 'a', digest: 'd2', ttlMs: 1 }], claim('a'));
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(await localKeyStore.claim([{ account: 'a', digest: 'd2', ttlMs: 60_000 }], claim('b'))).toEqual([undefined]);
	});

	it('a claim left "in progress" past KEY_CLAIMS.staleMs reads as of unknown outcome (never as free)', () => {
		const old = claim('a', Date.now() - KEY_CLAIMS.staleMs - 1);
		expect(current(old)).toMatchObject({ state: 'unknown', token: 'a' });
		expect(current(claim('b'))).toMatchObject({ state: 'pending' });
	});
});

describe("Idempotency Key: n8n's database (a restart is clearLocalKeys(); the marks stay)", () => {
	afterEach(clearLocalKeys);
	// n8n's processed-data row of one node, as a set of marks.
	const marks = new Set<string>();
	const helpers: ProcessedData = {
		async checkProcessedAndRecord(items) {
			const out = { new: [] as typeof items, processed: [] as typeof items };
			for (const item of items) {
				if (marks.has(String(item))) out.processed.push(item);
				else (marks.add(String(item)), out.new.push(item));
			}
			return out;
		},
		async removeProcessed(items) {
			for (const item of items) marks.delete(String(item));
		},
		getProcessedDataCount: async () => marks.size,
	};
	const hour = 3600_000;
	// 01:00 UTC: a 3-hour bucket began an hour ago.
	const t0 = Date.UTC(2026, 10, 27, 1);
	const claim = (token: string, at: number): KeyClaim => ({ state: 'pending', token, executionId: `e-${token}`, workflowId: 'w', at });
	const ask = (digest: string) => ({ account: 'a', digest, ttlMs: 24 * hour });
	const restarted = () => {
		clearLocalKeys();
		return durableKeyStore(localKeyStore, 'workflow\u0000node', helpers);
	};

	it('a key sent is known as sent in every later bucket of its hours (one "sent" mark), and free after them', async () => {
		const store = restarted();
		expect(await store.claim([ask('sent')], claim('a', t0))).toEqual([undefined]);
		await store.settle(ask('sent'), 'a', { ...claim('a', t0), state: 'sent', sentAt: new Date(t0).toISOString(), results: [{ messageId: 'm1' }] });
		await store.stored?.();
		const sentMarks = [...marks].filter((m) => m.startsWith('s:'));
		expect(sentMarks).toHaveLength(1);
		for (const later of [t0 + 1, t0 + 5 * hour, t0 + 23 * hour]) {
			expect((await restarted().claim([ask('sent')], claim(`b${later}`, later)))[0]).toMatchObject({ state: 'sent', durable: true });
		}
		// Past its 24 hours and the bucket it ends in: free again.
		expect(await restarted().claim([ask('sent')], claim('c', t0 + 27 * hour))).toEqual([undefined]);
		// Asking wrote no "sent" mark.
		expect([...marks].filter((m) => m.startsWith('s:'))).toEqual(sentMarks);
	});

	it('a claim mark written before claims had end marks (an upgrade) holds to its bucket end, as it did', async () => {
		marks.add(`k:legacy:${Math.floor(t0 / (3 * hour))}`);
		expect((await restarted().claim([{ account: 'a', digest: 'legacy', ttlMs: hour }], claim('a', t0 + 1.5 * hour)))[0]).toMatchObject({ state: 'unknown', durable: true });
		// Asking left no marks of its own behind.
		expect([...marks].filter((m) => m.includes('legacy'))).toEqual([`k:legacy:${Math.floor(t0 / (3 * hour))}`]);
		// The next bucket: free.
		expect(await restarted().claim([{ account: 'a', digest: 'legacy', ttlMs: hour }], claim('b', t0 + 2 * hour))).toEqual([undefined]);
	});

	it('a 1-hour key holds to the minute asked after a restart, then is free; a claim released takes its end mark with it', async () => {
		const oneHour = { account: 'a', digest: 'hour', ttlMs: hour };
		expect(await restarted().claim([oneHour], claim('a', t0))).toEqual([undefined]);
		expect((await restarted().claim([oneHour], claim('b', t0 + hour - 1)))[0]).toMatchObject({ durable: true });
		expect(await restarted().claim([oneHour], claim('c', t0 + hour + 60_000))).toEqual([undefined]);
		const store = restarted();
		expect(await store.claim([{ account: 'a', digest: 'released', ttlMs: hour }], claim('d', t0))).toEqual([undefined]);
		await store.settle({ account: 'a', digest: 'released', ttlMs: hour }, 'd', undefined);
		expect([...marks].filter((m) => m.includes(':released:'))).toEqual([]);
	});

	it('a keyed Send Bulk repeated after a restart asks the row for all its keys in a few calls, not two a key', async () => {
		const keys = Array.from({ length: 120 }, (_, n) => ({ account: 'a', digest: `bulk${n}`, ttlMs: hour }));
		expect(await restarted().claim(keys, claim('a', t0))).toEqual(keys.map(() => undefined));
		let calls = 0;
		const counted: ProcessedData = {
			checkProcessedAndRecord: async (...args) => (calls++, await helpers.checkProcessedAndRecord(...args)),
			removeProcessed: async (...args) => (calls++, await helpers.removeProcessed(...args)),
			getProcessedDataCount: helpers.getProcessedDataCount,
		};
		clearLocalKeys();
		const held = await durableKeyStore(localKeyStore, 'workflow\u0000node', counted).claim(keys, claim('b', t0 + hour / 2));
		expect(held.every((answer) => answer?.durable === true)).toBe(true);
		// The claim marks (1), the holds (3 look-ups of at most 55 keys, each taking its asked marks out again),
		// the "sent" marks (asked, then taken out): 9 calls for 120 keys.
		expect(calls).toBeLessThanOrEqual(9);
		expect(await restarted().claim(keys, claim('c', t0 + hour + 60_000))).toEqual(keys.map(() => undefined));
	});

	it('a key whose execution stopped before it was settled is of unknown outcome after the restart, never free', async () => {
		await restarted().claim([ask('stopped')], claim('a', t0));
		expect((await restarted().claim([ask('stopped')], claim('b', t0 + 4 * hour)))[0]).toMatchObject({ state: 'unknown', durable: true });
	});
});

describe('Idempotency Key: a key in progress elsewhere (sending/keys/idempotency.ts)', () => {
	afterEach(() => {
		jest.useRealTimers();
		clearLocalKeys();
	});
	const keys = (store: KeyStore): RunKeys => ({ store, executionId: 'e-2', workflowId: 'w', of: () => ({ key: 'order-1', account: 'a', digest: 'd9', ttlMs: 60_000 }) });
	const elsewhere = (): KeyClaim => ({ state: 'pending', token: 'other', executionId: 'e-1', workflowId: 'w', at: Date.now() });

	it('is waited for, then its result is answered (alreadySent), nothing posted', async () => {
		jest.useFakeTimers();
		await localKeyStore.claim([{ account: 'a', digest: 'd9', ttlMs: 60_000 }], elsewhere());
		const unit: { itemIndex: number; outcome?: Outcome } = { itemIndex: 0 };
		const claimed = claimKeys(node, keys(localKeyStore), [unit], false);
		await jest.advanceTimersByTimeAsync(1_000);
		await localKeyStore.settle({ account: 'a', digest: 'd9', ttlMs: 60_000 }, 'other', { ...elsewhere(), state: 'sent', sentAt: 'then', results: [{ messageId: 'm-1' }] });
		await jest.advanceTimersByTimeAsync(KEY_CLAIMS.pollMs);
		const { post } = await claimed;
		expect(post).toEqual([]);
		expect(unit.outcome).toEqual({ ok: true, json: { messageId: 'm-1', alreadySent: true, idempotencyKey: 'order-1', sentIn: { executionId: 'e-1', workflowId: 'w', at: 'then' } } });
	});

	it(`is refused after KEY_CLAIMS.waitMs (${KEY_CLAIMS.waitMs / 1000} s) without an answer: IDEMPOTENCY_KEY_HELD, nothing posted`, async () => {
		jest.useFakeTimers();
		await localKeyStore.claim([{ account: 'a', digest: 'd9', ttlMs: 60_000 }], elsewhere());
		const unit: { itemIndex: number; outcome?: Outcome } = { itemIndex: 0 };
		const claimed = claimKeys(node, keys(localKeyStore), [unit], false);
		await jest.advanceTimersByTimeAsync(KEY_CLAIMS.waitMs + KEY_CLAIMS.pollMs);
		const { post } = await claimed;
		expect(post).toEqual([]);
		expect(unit.outcome?.ok).toBe(false);
		const error = (unit.outcome as { error: Error & { description?: string; context: { errorCode?: string } } }).error;
		expect(error.message).toMatch(/^Item 0: the message of Idempotency Key "order-1" is being sent by execution e-1 at .+, which has not answered yet$/);
		expect(error.context.errorCode).toBe('IDEMPOTENCY_KEY_HELD');
	});

	it('a released key (the other send was refused before sending) is claimed and posted', async () => {
		jest.useFakeTimers();
		await localKeyStore.claim([{ account: 'a', digest: 'd9', ttlMs: 60_000 }], elsewhere());
		const unit: { itemIndex: number; outcome?: Outcome } = { itemIndex: 0 };
		const claimed = claimKeys(node, keys(localKeyStore), [unit], false);
		await jest.advanceTimersByTimeAsync(500);
		await localKeyStore.settle({ account: 'a', digest: 'd9', ttlMs: 60_000 }, 'other', undefined);
		await jest.advanceTimersByTimeAsync(KEY_CLAIMS.pollMs);
		const { post } = await claimed;
		expect(post).toEqual([unit]);
		expect((await localKeyStore.peek([{ account: 'a', digest: 'd9', ttlMs: 1 }]))[0]).toMatchObject({ state: 'pending', executionId: 'e-2' });
	});
});

describe('Idempotency Key: a claim left in progress (its execution stopped, or still sending a long run)', () => {
	afterEach(clearLocalKeys);

	it('is refused as of unknown outcome, and not taken over even with Resend Messages With Unknown Outcome', async () => {
		const old: KeyClaim = { state: 'pending', token: 'other', executionId: 'e-1', workflowId: 'w', at: Date.now() - KEY_CLAIMS.staleMs - 1 };
		await localKeyStore.claim([{ account: 'a', digest: 'd7', ttlMs: 3_600_000 }], old);
		const unit: { itemIndex: number; outcome?: Outcome } = { itemIndex: 0 };
		const runKeys: RunKeys = { store: localKeyStore, executionId: 'e-2', workflowId: 'w', of: () => ({ key: 'order-7', account: 'a', digest: 'd7', ttlMs: 3_600_000 }) };
		const { post } = await claimKeys(node, runKeys, [unit], true);
		expect(post).toEqual([]);
		const error = (unit.outcome as { error: Error & { description?: string; context: { errorCode?: string } } }).error;
		expect(error.message).toContain('Item 0: the message of Idempotency Key "order-7" may already have been sent (it has been in progress for more than 10 minutes');
		expect(error.description).toContain('to send it anyway, use another key');
		expect(error.context.errorCode).toBe('UNKNOWN_OUTCOME');
		expect((await localKeyStore.peek([{ account: 'a', digest: 'd7', ttlMs: 1 }]))[0]).toMatchObject({ token: 'other' });
	});
});

describe('Idempotency Key: the bound of this process (LOCAL_KEYS: a held key is never dropped for another)', () => {
	afterEach(() => jest.restoreAllMocks());

	it('full of keys within their hours, a new key is refused (all of a call or none); a key whose hours ended, wherever it is, frees its place', async () => {
		const { inProcess } = await import('../../nodes/SvcMessaging/stores/inProcess');
		const { StoreFull } = await import('../../nodes/SvcMessaging/stores/store');
		let now = 1_000_000;
		jest.spyOn(Date, 'now').mockImplementation(() => now);
		const store = inProcess<string>({ maxKeys: 3, keepUnexpired: true });
		// The shortest-lived key in the middle: the oldest (first) holds longest.
		expect(await store.setIfAbsent([['long', 'a', 3 * hourMs], ['short', 'b', hourMs], ['mid', 'c', 2 * hourMs]])).toEqual([true, true, true]);
		await expect(store.setIfAbsent([['new', 'd', hourMs]])).rejects.toBeInstanceOf(StoreFull);
		expect(await store.get(['long', 'short', 'mid', 'new'])).toEqual(['a', 'b', 'c', undefined]);
		now += hourMs + 1;
		// Two new keys, one place: neither is set.
		await expect(store.setIfAbsent([['new', 'd', hourMs], ['other', 'e', hourMs]])).rejects.toBeInstanceOf(StoreFull);
		expect(await store.get(['new', 'other'])).toEqual([undefined, undefined]);
		expect(await store.setIfAbsent([['new', 'd', hourMs]])).toEqual([true]);
		expect(await store.get(['long', 'short', 'mid', 'new'])).toEqual(['a', undefined, 'c', 'd']);
	});
});
const hourMs = 3_600_000;
