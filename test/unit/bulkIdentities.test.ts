/**
 * Send Bulk's ledger identities: found without a Set of every number (hashes sorted in a typed
 * array), they must be exactly what numbering every payload in order gives (messageIdentities),
 * which is what earlier versions wrote to Redis: a retry after an upgrade finds what was sent.
 */
import { assignIdentities, recipientPayload } from '../../nodes/SvcMessaging/actions/sms/bulkIdentities';
import type { Group, Recipient } from '../../nodes/SvcMessaging/actions/sms/bulkRecipients';
import { messageIdentities } from '../../nodes/SvcMessaging/sending/ledger/ledger';

function group(id: string, placeholders: string[] = []): Group {
	return { body: { message: `m ${id}` }, id, placeholders, checkFilled: () => undefined };
}

function recipient(itemIndex: number, phoneNumber: string, g: Group, variables?: Record<string, string>): Recipient {
	return { itemIndex, phoneNumber, group: g, variables, identity: '' };
}

/** A deterministic pseudo-random sequence (the test must not vary between runs). */
function sequence(seed: number) {
	let state = seed;
	return (n: number) => {
		state = (Math.imul(state, 1103515245) + 12345) >>> 0;
		return state % n;
	};
}

describe('assignIdentities', () => {
	it('numbers repeats as messageIdentities does over every payload, and counts the extra appearances', () => {
		const a = group('AAAAAAAAAAAA');
		const b = group('BBBBBBBBBBBB', ['name']);
		const recipients = [
			recipient(0, '+254712000001', a),
			recipient(1, '+254712000002', a),
			recipient(2, '+254712000001', a), // repeat of 0
			recipient(3, '+254712000001', b, { name: 'Amina' }), // same number, another message: not a repeat
			recipient(4, '+254712000001', b, { name: 'Amina' }), // repeat of 3
			recipient(5, '+254712000001', b, { name: 'Baraka' }), // same number and message, other value: own payload
			recipient(6, '+254712000001', a), // second repeat of 0
		];
		const expected = messageIdentities(recipients.map(recipientPayload));
		const repeated = assignIdentities(recipients);
		expect(recipients.map((r) => r.identity)).toEqual(expected);
		expect(repeated).toBe(4);
		expect(recipients[0].identity).toBe('+254712000001\u0000AAAAAAAAAAAA\u0000\u0000#0');
		expect(recipients[6].identity).toBe('+254712000001\u0000AAAAAAAAAAAA\u0000\u0000#2');
		expect(recipients[5].identity.endsWith('#0')).toBe(true);
	});

	it('agrees with messageIdentities on 20,000 recipients with many repeats', () => {
		const next = sequence(7);
		const groups = [group('g1xxxxxxxxxx'), group('g2xxxxxxxxxx', ['order'])];
		const recipients = Array.from({ length: 20_000 }, (_, i) => {
			const g = groups[next(2)];
			const phone = `+2547${String(10_000_000 + next(15_000)).padStart(8, '0')}`;
			return recipient(i, phone, g, g.placeholders.length ? { order: `A-${next(3)}` } : undefined);
		});
		const expected = messageIdentities(recipients.map(recipientPayload));
		let extra = 0;
		const seen = new Set<string>();
		for (const r of recipients) {
			const key = `${r.group.id}\u0000${r.phoneNumber}`;
			if (seen.has(key)) extra++;
			seen.add(key);
		}
		expect(assignIdentities(recipients)).toBe(extra);
		expect(extra).toBeGreaterThan(1_000);
		expect(recipients.map((r) => r.identity)).toEqual(expected);
	});
});
