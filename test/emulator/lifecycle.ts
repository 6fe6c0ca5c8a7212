/**
 * Message lifecycle: PENDING at acceptance, SENT 1 s after it is due, then DELIVERED, FAILED or EXPIRED
 * 3 s later (test-number conventions; all scaled). Every status change emits its webhook event.
 */
import { LIFECYCLE_FINAL_AFTER_SENT_MS, LIFECYCLE_SENT_AFTER_MS } from './assumptions';
import { newId } from './http';
import { WEBHOOK_EVENTS } from './limits';
import { creditsFor, outcomeOf, segmentInfo } from './rules';
import type { Runtime } from './runtime';
import type { SmsMessage } from './state';

export interface MessageInput {
	accountId: string;
	phoneNumber: string;
	message: string;
	senderId: string;
	reference?: string | null;
	webhookUrl?: string | null;
	batchId?: string | null;
	campaignId?: number | null;
	scheduledAt?: number | null;
}

/** Stores an accepted (already charged) message and starts its lifecycle. */
export function acceptMessage(rt: Runtime, input: MessageInput, now: number): SmsMessage {
	const { encoding, segments } = segmentInfo(input.message);
	const message: SmsMessage = {
		messageId: newId('msg'),
		accountId: input.accountId,
		batchId: input.batchId ?? null,
		campaignId: input.campaignId ?? null,
		phoneNumber: input.phoneNumber,
		message: input.message,
		senderId: input.senderId,
		reference: input.reference ?? null,
		webhookUrl: input.webhookUrl ?? null,
		status: 'PENDING',
		encoding,
		segments,
		creditsUsed: creditsFor(segments),
		createdAt: now,
		scheduledAt: input.scheduledAt ?? null,
		sentAt: null,
		deliveredAt: null,
		finalAt: null,
		failureReason: null,
	};
	rt.state.messages.set(message.messageId, message);
	rt.webhooks.emit(message, WEBHOOK_EVENTS.PENDING, now);

	const due = Math.max(now, message.scheduledAt ?? now);
	const sentAt = due + rt.clock.scale(LIFECYCLE_SENT_AFTER_MS);
	const epoch = rt.state.epoch;
	rt.clock.schedule(sentAt, (at) => {
		if (rt.state.epoch !== epoch) return;
		message.status = 'SENT';
		message.sentAt = at;
		rt.webhooks.emit(message, WEBHOOK_EVENTS.SENT, at);
	});
	rt.clock.schedule(sentAt + rt.clock.scale(LIFECYCLE_FINAL_AFTER_SENT_MS), (at) => {
		if (rt.state.epoch !== epoch) return;
		finish(rt, message, at);
	});
	return message;
}

function finish(rt: Runtime, message: SmsMessage, at: number): void {
	if (rt.state.carrierHeld) {
		rt.state.heldMessages.push(message);
		return;
	}
	const outcome = outcomeOf(message.phoneNumber);
	message.status = outcome.status;
	message.finalAt = at;
	message.failureReason = outcome.reason;
	if (outcome.status === 'DELIVERED') message.deliveredAt = at;
	const event =
		outcome.status === 'DELIVERED'
			? WEBHOOK_EVENTS.DELIVERED
			: outcome.status === 'FAILED'
				? WEBHOOK_EVENTS.FAILED
				: WEBHOOK_EVENTS.EXPIRED;
	rt.webhooks.emit(message, event, at);
	rt.onMessageFinal(message, at);
}

export function isFinal(message: SmsMessage): boolean {
	return message.finalAt !== null;
}

/**
 * Carrier hold: while on, messages stay SENT and no final report goes out (a carrier that has not
 * answered yet). Releasing it ends the held messages at once, in the order they were due.
 */
export function holdCarrier(rt: Runtime, hold: boolean, now: number): { held: boolean; released: number } {
	rt.state.carrierHeld = hold;
	if (hold) return { held: true, released: 0 };
	const due = rt.state.heldMessages.splice(0);
	for (const message of due) finish(rt, message, now);
	return { held: false, released: due.length };
}
