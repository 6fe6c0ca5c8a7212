/** Helpers for the emulator's own tests: an HTTP client, polling, and a webhook receiver. */
import { createServer, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import { request } from 'undici';

import { SEED_LOGINS } from './seed';

export interface Res {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: any;
}

export interface CallOptions {
	key?: string;
	token?: string;
	body?: unknown;
	/** sent as is (with Content-Type application/json unless headers say otherwise) */
	raw?: string;
	headers?: Record<string, string>;
}

export class Client {
	/** `target`: a URL, or an emulator whose URL is read at each call (the fixture's, running only inside tests) */
	constructor(private readonly target: string | { readonly url: string }) {}

	get base(): string {
		return typeof this.target === 'string' ? this.target : this.target.url;
	}

	async call(method: string, path: string, options: CallOptions = {}): Promise<Res> {
		const headers: Record<string, string> = { ...options.headers };
		if (options.key) headers['x-api-key'] = options.key;
		if (options.token) headers.authorization = `Bearer ${options.token}`;
		let body: string | undefined;
		if (options.raw !== undefined || options.body !== undefined) {
			body = options.raw ?? JSON.stringify(options.body);
			headers['content-type'] ??= 'application/json';
		}
		const res = await request(`${this.base}${path}`, { method: method as 'GET', headers, body });
		const text = await res.body.text();
		return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined };
	}

	get(path: string, options?: CallOptions) {
		return this.call('GET', path, options);
	}
	post(path: string, body?: unknown, options?: CallOptions) {
		return this.call('POST', path, { ...options, body });
	}
	patch(path: string, body?: unknown, options?: CallOptions) {
		return this.call('PATCH', path, { ...options, body });
	}
	delete(path: string, options?: CallOptions) {
		return this.call('DELETE', path, options);
	}

	async login(who: { email: string; password: string } = SEED_LOGINS.demo): Promise<string> {
		const res = await this.post('/api/auth/login', { email: who.email, password: who.password });
		if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
		return res.body.data.accessToken;
	}
}

/** Asserts the error envelope. */
export function expectError(res: Res, status: number, code: string, message?: string | RegExp): void {
	expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status } });
	expect(typeof res.body.error.message).toBe('string');
	if (message !== undefined) expect(res.body.error.message).toMatch(message);
}

export interface Received {
	/** Date.now() at arrival */
	time: number;
	headers: IncomingHttpHeaders;
	raw: string;
	json: any;
}

export interface Receiver {
	url: string;
	received: Received[];
	close(): Promise<void>;
}

/** An HTTP server recording every POST; `status(n, request)` answers the n-th request (1-based). */
export async function startReceiver(status: (n: number, request: Received) => number = () => 200): Promise<Receiver> {
	const received: Received[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			const request: Received = { time: Date.now(), headers: req.headers, raw, json: raw ? JSON.parse(raw) : undefined };
			received.push(request);
			res.writeHead(status(received.length, request), { 'content-type': 'text/plain' });
			res.end('ok');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
