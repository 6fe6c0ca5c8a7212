import { createHmac, timingSafeEqual } from 'node:crypto';

import { SERVICE } from '../transport/service';

/**
 * Webhook signature (docs/assumptions.md): `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw
 * body, keyed with the webhook secret>`. The check runs over the exact bytes received, before the
 * body is parsed, and compares in constant time.
 */
export function signBody(rawBody: Buffer, secret: string): string {
	return SERVICE.signaturePrefix + createHmac('sha256', secret).update(rawBody).digest('hex');
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** Whether `header` is a valid signature of `rawBody` with `secret`. Never throws. */
export function hasValidSignature(rawBody: Buffer, header: unknown, secret: string): boolean {
	if (typeof header !== 'string') return false;
	const value = header.trim();
	if (value.slice(0, SERVICE.signaturePrefix.length).toLowerCase() !== SERVICE.signaturePrefix) {
		return false;
	}
	const provided = value.slice(SERVICE.signaturePrefix.length);
	if (!SHA256_HEX.test(provided)) return false;
	const expected = createHmac('sha256', secret).update(rawBody).digest();
	// Both buffers are 32 bytes here (the regex fixes the length), as timingSafeEqual requires.
	return timingSafeEqual(expected, Buffer.from(provided, 'hex'));
}
