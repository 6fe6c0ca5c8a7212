/** The emulator, through its HTTP control surface (/__emulator/). */
import { http } from './processes';

export class EmulatorClient {
	constructor(readonly url: string) {}

	async control<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await http<{ success: boolean; data: T; error?: unknown }>(method, `${this.url}/__emulator${path}`, body);
		if (res.status >= 300) throw new Error(`${method} /__emulator${path} → ${res.status}: ${res.text.slice(0, 500)}`);
		return res.body.data;
	}

	reset() {
		return this.control('POST', '/reset');
	}
	messages(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/messages${qs(query)}`);
	}
	chatMessages(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/chat-messages${qs(query)}`);
	}
	webhooks(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/webhooks${qs(query)}`);
	}
	requests() {
		return this.control<any[]>('GET', '/requests');
	}
	clearRequests() {
		return this.control('DELETE', '/requests');
	}
	/**
	 * What examples/otp-with-fallback.json needs at the service: the approved chat template
	 * `otp_code` ("Your verification code is {{1}}.") and chat opt-ins for the given numbers.
	 */
	async prepareOtpFallback(apiKey: string, optIns: string[]): Promise<void> {
		const created = await http('POST', `${this.url}/api/chat/templates`, {
			name: 'otp_code',
			category: 'UTILITY',
			language: 'en',
			components: [{ type: 'BODY', text: 'Your verification code is {{1}}.' }],
		}, { 'x-api-key': apiKey });
		if (created.status !== 201 && !/exists/i.test(created.text)) throw new Error(`creating otp_code: ${created.status} ${created.text}`);
		await this.control('POST', '/templates/otp_code/review', { status: 'APPROVED' });
		for (const phoneNumber of optIns) await this.control('POST', '/opt-ins', { phoneNumber });
	}
	/** Carrier hold: messages stay SENT with no final report until released (`false`). */
	holdCarrier(hold: boolean) {
		return this.control<{ held: boolean; released: number }>('POST', '/carrier', { hold });
	}
	/** Lost reports: no delivery report is posted for messages to these numbers ([] ends it). */
	loseReports(phoneNumbers: string[]) {
		return this.control<{ phoneNumbers: string[] }>('POST', '/reports/lost', { phoneNumbers });
	}
	fault(fault: Record<string, unknown>) {
		return this.control('POST', '/faults', fault);
	}
	clearFaults() {
		return this.control('DELETE', '/faults');
	}
	expireTokens() {
		return this.control('POST', '/tokens/expire');
	}
	patchAccount(id: string, patch: Record<string, unknown>) {
		return this.control('PATCH', `/accounts/${id}`, patch);
	}
	account(id: string) {
		return this.control<any>('GET', `/accounts/${id}`);
	}
	advance(ms: number) {
		return this.control('POST', '/clock/advance', { ms });
	}
	reviewTemplate(name: string, status: string, reason?: string) {
		return this.control('POST', `/templates/${encodeURIComponent(name)}/review`, { status, ...(reason ? { reason } : {}) });
	}
}

function qs(query: Record<string, string>): string {
	const entries = Object.entries(query).filter(([, v]) => v !== undefined);
	return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}
