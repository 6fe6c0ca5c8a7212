/**
 * The HTTP server: routes, authentication, rate limit, body parsing, faults and the request log.
 * Order for API routes: the way in (latency.ts) → fault → route (404) → auth (401) → rate limit (429, API-key routes) → body (400) → handler → the way out.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';

import { accountRoutes } from './account';
import { CONTROL_PREFIX, MAX_BODY_BYTES, MAX_REQUEST_LOG, RATE_LIMIT_HEADERS } from './assumptions';
import { authenticateApiKey, authenticateBearer, login } from './auth';
import { campaignRoutes } from './campaigns';
import { chatRoutes } from './chat';
import { takeFault } from './faults';
import { ApiError, badRequest, errorReply, iso, notFound, type Reply } from './http';
import { drawMs, sleep } from './latency';
import { rateLimitError, takeRequest } from './rateLimit';
import { matchRoute, route, type Ctx, type Route } from './router';
import type { Runtime } from './runtime';
import { smsRoutes } from './sms';
import { lookupRoutes } from './smsLookups';
import type { RequestRecord } from './state';
import { templateRoutes } from './templates';

export const apiRoutes: Route[] = [
	...smsRoutes,
	...lookupRoutes,
	...accountRoutes,
	...campaignRoutes,
	...chatRoutes,
	...templateRoutes,
	route('POST', '/api/auth/login', 'none', (ctx) => login(ctx.rt, ctx.body, ctx.now)),
];

const JSON_TYPE = 'application/json; charset=utf-8';

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes`));
				req.pause();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function parseJson(req: IncomingMessage, raw: Buffer): unknown {
	if (raw.length === 0) return undefined;
	if (!/^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '')) {
		throw badRequest('Content-Type must be application/json');
	}
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch (error) {
		throw badRequest(`Malformed JSON body: ${(error as Error).message}`);
	}
}

function send(res: ServerResponse, reply: Reply): void {
	if (res.destroyed || res.headersSent) return;
	res.writeHead(reply.status, { 'content-type': JSON_TYPE, ...reply.headers });
	res.end(JSON.stringify(reply.body));
}

function errorCode(reply: Reply): string | null {
	const body = reply.body as { success?: boolean; error?: { code?: string } } | null;
	return body?.success === false ? (body.error?.code ?? null) : null;
}

/** Route, authenticate, rate-limit, parse and run one request; errors become the error envelope. */
async function dispatch(
	rt: Runtime,
	routes: Route[],
	req: IncomingMessage,
	url: URL,
	raw: Buffer,
	record: RequestRecord | null,
): Promise<Reply> {
	let rateHeaders: Record<string, string> = {};
	try {
		const method = req.method ?? 'GET';
		const match = matchRoute(routes, method, url.pathname);
		if (!match) throw notFound(`No route for ${method} ${url.pathname}`);
		const now = rt.clock.now();
		const ctx: Ctx = {
			rt,
			params: match.params,
			query: url.searchParams,
			body: undefined,
			headers: req.headers,
			now,
			account: null,
			apiKey: null,
		};
		if (match.route.auth === 'apiKey') {
			if (record) record.auth = 'apiKey';
			const { apiKey, account } = authenticateApiKey(rt, req.headers);
			Object.assign(ctx, { apiKey, account });
			if (record) Object.assign(record, { keyLast4: apiKey.key.slice(-4), accountId: account.id });
			const decision = takeRequest(rt.rateLimitMode, rt.state, apiKey, now, rt.secondOffsetMs);
			rateHeaders = decision.headers;
			if (!decision.allowed) throw rateLimitError(apiKey.requestsPerSecond);
		} else if (match.route.auth === 'bearer') {
			if (record) record.auth = 'bearer';
			ctx.account = authenticateBearer(rt, req.headers, now);
			if (record) record.accountId = ctx.account.id;
		}
		ctx.body = parseJson(req, raw);
		const reply = await match.route.handler(ctx);
		return { ...reply, headers: { ...rateHeaders, ...reply.headers } };
	} catch (error) {
		if (!(error instanceof ApiError)) {
			process.stderr.write(`svc emulator: internal error on ${req.method} ${url.pathname}: ${(error as Error)?.stack ?? error}\n`);
		}
		const apiError = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_ERROR', 'Internal emulator error');
		const reply = errorReply(apiError);
		return { ...reply, headers: rateHeaders };
	}
}

function logRequest(rt: Runtime, record: RequestRecord, status: number | null, code: string | null, started: number): void {
	record.status = status;
	record.errorCode = code;
	record.durationMs = Date.now() - started;
	const log = rt.state.requests;
	log.push(record);
	if (log.length > MAX_REQUEST_LOG) log.splice(0, log.length - MAX_REQUEST_LOG);
}

async function handle(rt: Runtime, controlRoutes: Route[], req: IncomingMessage, res: ServerResponse): Promise<void> {
	const url = new URL(req.url ?? '/', 'http://emulator');
	if (url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
		let raw: Buffer;
		try {
			raw = await readBody(req);
		} catch (error) {
			return void (error instanceof ApiError ? send(res, errorReply(error)) : req.socket.destroy());
		}
		return send(res, await dispatch(rt, controlRoutes, req, url, raw, null));
	}

	// The way in: the request reaches the service (its rate limit, its log) only after it.
	await sleep(drawMs(rt.latency.inbound));
	const started = Date.now();
	const epoch = rt.state.epoch;
	const method = req.method ?? 'GET';
	const record: RequestRecord = {
		id: rt.state.nextRequestId++,
		method,
		path: url.pathname,
		status: null,
		errorCode: null,
		time: iso(rt.clock.now()) as string,
		durationMs: 0,
		auth: null,
		keyLast4: null,
		accountId: null,
		fault: null,
	};
	const finish = (status: number | null, code: string | null) => {
		if (rt.state.epoch === epoch) logRequest(rt, record, status, code, started);
	};
	const fault = takeFault(rt.state, method, url.pathname);
	record.fault = fault?.kind ?? null;
	if (fault?.kind === 'drop-before-processing') {
		req.socket.destroy();
		return finish(null, null);
	}
	let raw: Buffer;
	try {
		raw = await readBody(req);
	} catch (error) {
		if (!(error instanceof ApiError)) {
			req.socket.destroy(); // the client went away while sending
			return finish(null, null);
		}
		const reply = errorReply(error);
		send(res, { ...reply, headers: { connection: 'close' } });
		return finish(reply.status, errorCode(reply));
	}
	let reply: Reply;
	if (fault?.kind === 'rate-limit') {
		reply = errorReply(new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests (injected fault)'));
		reply.headers = {
			'Retry-After': String(fault.retryAfterSeconds),
			[RATE_LIMIT_HEADERS.remaining]: '0',
			[RATE_LIMIT_HEADERS.reset]: String(Math.ceil(rt.clock.now() / 1000) + fault.retryAfterSeconds),
		};
	} else if (fault?.kind === 'server-error') {
		const code = fault.status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR';
		reply = errorReply(new ApiError(fault.status, code, `Injected server error (${fault.status})`));
	} else {
		if (fault?.kind === 'slow') await sleep(fault.delayMs);
		reply = await dispatch(rt, apiRoutes, req, url, raw, record);
	}
	// The way out: the answer leaves now and reaches the client after this.
	await sleep(drawMs(rt.latency.outbound));
	if (fault?.kind === 'drop-after-processing') {
		req.socket.destroy();
		return finish(null, errorCode(reply));
	}
	send(res, reply);
	finish(reply.status, errorCode(reply));
}

/**
 * An idle kept-alive connection is closed by its client, not by the emulator: a server that closes
 * first (Node's default, 5 s) races a client reusing the socket at that moment (undici's "other side
 * closed"; one bench run on a loaded machine failed so). The clients here let go within 4–10 s.
 */
const KEEP_ALIVE_MS = 65_000;

export function createApp(rt: Runtime, controlRoutes: Route[]): Server {
	const server = createServer((req, res) => {
		handle(rt, controlRoutes, req, res).catch((error) => {
			process.stderr.write(`svc emulator: request failed: ${(error as Error)?.message ?? error}\n`);
			if (!res.headersSent && !res.destroyed) send(res, errorReply(new ApiError(500, 'INTERNAL_ERROR', 'Internal emulator error')));
		});
	});
	server.keepAliveTimeout = KEEP_ALIVE_MS;
	// Kept above keepAliveTimeout, as is usual for a server behind keep-alive clients.
	server.headersTimeout = KEEP_ALIVE_MS + 1_000;
	return server;
}
