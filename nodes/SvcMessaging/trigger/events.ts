/**
 * The delivery-report events of the spec (Events). Each SMS status change is sent as one of them;
 * the service documents no webhook events for chat messages, campaigns or incoming messages.
 */
export const DELIVERY_EVENTS = [
	'message.pending',
	'message.sent',
	'message.delivered',
	'message.failed',
	'message.expired',
] as const;

export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

export function isDeliveryEvent(value: unknown): value is DeliveryEvent {
	return typeof value === 'string' && (DELIVERY_EVENTS as readonly string[]).includes(value);
}
