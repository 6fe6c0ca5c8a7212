/**
 * Options → Idempotency Key: the option's field rules (rules/idempotencyKey.ts) and the claims in
 * this process (sending/keyClaims.ts): one claim per key, settled only by its holder.
 */
import type { INode } from 'n8n-workflow';

import { checkIdempotencyKey, checkRememberHours } from '../../nodes/SvcMessaging/rules/idempotencyKey';
import { clearLocalKeys, current, KEY_CLAIMS, localKeyStore, type KeyClaim } from '../../nodes/SvcMessaging/sending/keyClaims';

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
	const ask = { digest: 'd1', ttlMs: 60_000 };

	it('one claim per key: the second claimant gets the holder, who alone settles or releases it', async () => {
		expect(await localKeyStore.claim([ask], claim('a'))).toEqual([undefined]);
		const [held] = await localKeyStore.claim([ask], claim('b'));
		expect(held).toMatchObject({ token: 'a', state: 'pending' });
		expect(await localKeyStore.settle(ask, 'b', undefined)).toBe(false);
		expect(await localKeyStore.settle(ask, 'a', { ...claim('a'), state: 'sent', results: [{ messageId: 'm1' }] })).toBe(true);
		expect((await localKeyStore.peek(['d1']))[0]).toMatchObject({ state: 'sent', results: [{ messageId: 'm1' }] });
		expect(await localKeyStore.settle(ask, 'a', undefined)).toBe(true);
		expect(await localKeyStore.claim([ask], claim('c'))).toEqual([undefined]);
	});

	it('a key is forgotten after its time', async () => {
		await localKeyStore.claim([{ digest: 'd2', ttlMs: 1 }], claim('a'));
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(await localKeyStore.claim([{ digest: 'd2', ttlMs: 60_000 }], claim('b'))).toEqual([undefined]);
	});

	it('a claim left "in progress" past KEY_CLAIMS.staleMs reads as of unknown outcome (never as free)', () => {
		const old = claim('a', Date.now() - KEY_CLAIMS.staleMs - 1);
		expect(current(old)).toMatchObject({ state: 'unknown', token: 'a' });
		expect(current(claim('b'))).toMatchObject({ state: 'pending' });
	});
});
