/**
 * Delivery-report webhooks: one POST per status change, 6 attempts at the spec's delays (scaled),
 * then discarded. Any answer but 200, and any network error or timeout, is a failed attempt.
 * The events of one message are delivered independently (a retried event may arrive after a later one).
 */
import { createHmac } from 'crypto';
import { Agent, request } from 'undici';

import {
	NO_BATCH_ID,
	WEBHOOK_CONNECT_TIMEOUT_MS,
	WEBHOOK_MAX_CONCURRENCY,
	WEBHOOK_RESPONSE_TIMEOUT_MS,
	WEBHOOK_SIGNATURE_HEADER,
	WEBHOOK_SIGNATURE_PREFIX,
	WEBHOOK_USER_AGENT,
} from './assumptions';
import type { Clock } from './clock';
import { iso } from './http';
import { WEBHOOK_RETRY_DELAYS_MS } from './limits';
import type { EmulatorState, SmsMessage } from './state';

interface Delivery {
	url: string;
	event: string;
	messageId: string;
	accountId: string;
	body: string;
	payload: unknown;
	epoch: number;
}

export function webhookPayload(message: SmsMessage, event: string, at: number) {
	const data: Record<string, unknown> = {
		messageId: message.messageId,
		batchId: message.batchId ?? NO_BATCH_ID,
		phoneNumber: message.phoneNumber,
		status: message.status,
		senderId: message.senderId,
		reference: message.reference,
		deliveredAt: iso(message.deliveredAt),
		creditsUsed: message.creditsUsed,
	};
	if (message.status === 'FAILED' && message.failureReason) data.reason = { ...message.failureReason };
	return { event, timestamp: iso(at), data };
}

export function sign(secret: string, body: string): string {
	return WEBHOOK_SIGNATURE_PREFIX + createHmac('sha256', secret).update(body).digest('hex');
}

export class WebhookDispatcher {
	private readonly agent = new Agent({
		connect: { timeout: WEBHOOK_CONNECT_TIMEOUT_MS },
		headersTimeout: WEBHOOK_RESPONSE_TIMEOUT_MS,
		bodyTimeout: WEBHOOK_RESPONSE_TIMEOUT_MS,
		connections: WEBHOOK_MAX_CONCURRENCY,
	});
	private closed = false;
	/** attempts in flight, and the attempts waiting for a free slot (FIFO) */
	private active = 0;
	private waiting: Array<() => void> = [];
	private waitingHead = 0;

	constructor(
		private readonly state: EmulatorState,
		private readonly clock: Clock,
	) {}

	/** Queues the event of the message's current status to its webhookUrl or the account default. */
	emit(message: SmsMessage, event: string, at: number): void {
		const url = message.webhookUrl ?? this.state.accounts.get(message.accountId)?.webhookUrl ?? null;
		if (!url || this.closed || this.state.lostReportNumbers.has(message.phoneNumber)) return;
		const payload = webhookPayload(message, event, at);
		const delivery: Delivery = {
			url,
			event,
			messageId: message.messageId,
			accountId: message.accountId,
			body: JSON.stringify(payload),
			payload,
			epoch: this.state.epoch,
		};
		this.clock.schedule(at, () => this.attempt(delivery, 1));
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const wake of this.waiting.splice(this.waitingHead)) wake();
		await this.agent.destroy().catch(() => undefined);
	}

	/** At most WEBHOOK_MAX_CONCURRENCY attempts run at once; the others wait in order. */
	private async acquire(): Promise<void> {
		if (this.active < WEBHOOK_MAX_CONCURRENCY) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	private release(): void {
		if (this.waitingHead < this.waiting.length) {
			const wake = this.waiting[this.waitingHead++];
			if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
				this.waiting = this.waiting.slice(this.waitingHead);
				this.waitingHead = 0;
			}
			wake(); // the slot passes to the woken attempt
		} else this.active--;
	}

	private async attempt(delivery: Delivery, attempt: number): Promise<void> {
		if (this.closed || delivery.epoch !== this.state.epoch) return;
		await this.acquire();
		try {
			await this.send(delivery, attempt);
		} finally {
			this.release();
		}
	}

	private async send(delivery: Delivery, attempt: number): Promise<void> {
		if (this.closed || delivery.epoch !== this.state.epoch) return;
		const secret = this.state.accounts.get(delivery.accountId)?.webhookSecret ?? null;
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'user-agent': WEBHOOK_USER_AGENT,
		};
		if (secret) headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] = sign(secret, delivery.body);
		const time = this.clock.now();
		const started = Date.now();
		let status: number | null = null;
		let error: string | null = null;
		try {
			const res = await request(delivery.url, {
				method: 'POST',
				headers,
				body: delivery.body,
				dispatcher: this.agent,
				headersTimeout: WEBHOOK_RESPONSE_TIMEOUT_MS,
				bodyTimeout: WEBHOOK_RESPONSE_TIMEOUT_MS,
			});
			status = res.statusCode;
			await res.body.dump();
		} catch (e) {
			const err = e as { code?: string; message?: string };
			error = [err.code, err.message].filter(Boolean).join(': ') || String(e);
		}
		if (this.closed || delivery.epoch !== this.state.epoch) return;
		const failed = status !== 200;
		const next = failed && attempt < WEBHOOK_RETRY_DELAYS_MS.length
			? this.clock.now() + this.clock.scale(WEBHOOK_RETRY_DELAYS_MS[attempt])
			: null;
		this.state.webhookAttempts.push({
			id: this.state.nextWebhookAttemptId++,
			url: delivery.url,
			event: delivery.event,
			messageId: delivery.messageId,
			accountId: delivery.accountId,
			attempt,
			time: iso(time) as string,
			status,
			error,
			durationMs: Date.now() - started,
			signed: Boolean(secret),
			nextAttemptAt: iso(next),
			payload: delivery.payload,
		});
		if (next !== null) this.clock.schedule(next, () => this.attempt(delivery, attempt + 1));
	}
}
