/** Shared setup of the chat suites: credentials, parameter builders, and small local servers. */
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync } from 'fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import { createServer as createHttpsServer } from 'https';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import tls from 'tls';

import type { IDataObject, ResourceMapperField } from 'n8n-workflow';

import type { RunningEmulator } from '../emulator';
import { apiKeyCredentials } from '../helpers/credentials';
import { executeNode } from '../helpers/n8n';

export const OPTED_IN = '+254712345678';
export const OPTED_IN_2 = '+254712345679';
export const OPTED_IN_NG = '+2348031234567';
export const NOT_OPTED_IN = '+254712345670';

export const locator = (value: string, mode: 'list' | 'name' = 'list') => ({ __rl: true, mode, value });

/** The resource mapper's stored value, as the editor saves it. */
export function mapped(value: Record<string, string>, schema: ResourceMapperField[] = []) {
	return {
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		schema,
		attemptToConvertTypes: false,
		convertFieldsToString: true,
	};
}

export function chatSend(url: string, parameters: IDataObject, items: IDataObject[] = [{}], apiKey?: string) {
	return executeNode(
		{ parameters: { resource: 'chatMessage', operation: 'send', ...parameters }, credentials: apiKeyCredentials(url, { apiKey }) },
		items,
	);
}

export function templateOp(url: string, operation: string, parameters: IDataObject, items: IDataObject[] = [{}]) {
	return executeNode({ parameters: { resource: 'chatTemplate', operation, ...parameters }, credentials: apiKeyCredentials(url) }, items);
}

/** Creates a template through the node and waits for the emulator's (scaled) review to approve it. */
export async function approvedTemplate(emu: RunningEmulator, name: string, components: unknown[], language = 'en') {
	await templateOp(emu.url, 'create', jsonTemplate(name, components, 'UTILITY', language));
	await waitUntil(async () => [...emu.state.templates.values()].find((t) => t.name === name && t.status === 'APPROVED'), `${name} approved`);
}

/** The chat messages the node POSTed (the emulator's request log). */
export const chatPosts = (emu: RunningEmulator) => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/messages');

/** The emulator's record of a template, by name. */
export const storedTemplate = (emu: RunningEmulator, name: string) => [...emu.state.templates.values()].find((t) => t.name === name);

/** Form parameters of Chat Template → Create. */
export function formTemplate(name: string, parts: IDataObject = {}): IDataObject {
	return { templateName: name, category: 'UTILITY', language: 'en', componentsSource: 'form', bodyText: 'Hello {{1}}.', ...parts };
}

/** JSON parameters of Chat Template → Create. */
export function jsonTemplate(name: string, components: unknown, category = 'UTILITY', language = 'en'): IDataObject {
	return { templateName: name, category, language, componentsSource: 'json', componentsJson: JSON.stringify(components) };
}

/** Resolves with the error a promise rejects with (fails the test when it resolves). */
export async function errorOf(promise: Promise<unknown>): Promise<Error & { description?: string; context?: IDataObject }> {
	try {
		await promise;
	} catch (error) {
		return error as Error & { description?: string };
	}
	throw new Error('expected the node to throw');
}

export async function waitUntil<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

async function listen(server: Server, protocol: 'http' | 'https'): Promise<{ url: string; close: () => Promise<void> }> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `${protocol}://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

export interface MediaFile {
	status?: number;
	contentType?: string;
	contentLength?: number;
}

/**
 * An HTTPS file host with a throw-away self-signed certificate for 127.0.0.1 (made with openssl),
 * answering HEAD requests from a table of paths. While it runs, TLS connections to its port trust
 * that certificate (verification stays on); `close` restores tls.connect.
 */
export async function startMediaHost(files: Record<string, MediaFile>) {
	const dir = mkdtempSync(join(tmpdir(), 'svc-media-'));
	execFileSync('openssl', [
		'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
		'-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
	], { stdio: 'ignore' });
	const heads: Array<{ method: string; path: string }> = [];
	const server = createHttpsServer(
		{ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
		(req, res) => {
			heads.push({ method: req.method ?? '', path: req.url ?? '' });
			const file = files[(req.url ?? '').split('?')[0]];
			if (!file) {
				res.statusCode = 404;
				res.end();
				return;
			}
			res.statusCode = file.status ?? 200;
			if (file.contentType) res.setHeader('content-type', file.contentType);
			if (file.contentLength !== undefined) res.setHeader('content-length', String(file.contentLength));
			res.end();
		},
	);
	const { url, close } = await listen(server, 'https');
	const port = (server.address() as AddressInfo).port;
	const cert = readFileSync(join(dir, 'cert.pem'));
	const original = tls.connect;
	(tls as { connect: unknown }).connect = (...args: unknown[]) => {
		const options = args.find((a) => a && typeof a === 'object') as tls.ConnectionOptions | undefined;
		if (options && Number(options.port) === port) options.ca = cert;
		return (original as (...a: unknown[]) => tls.TLSSocket)(...args);
	};
	return {
		url,
		heads,
		async close() {
			(tls as { connect: unknown }).connect = original;
			await close();
		},
	};
}

/** A stand-in for the service that answers every request with one error envelope of the spec. */
export async function startErrorService(status: number, code: string, message: string) {
	const received: Array<{ method: string; path: string; body: unknown }> = [];
	const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			received.push({ method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : undefined });
			res.statusCode = status;
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ success: false, error: { code, message, statusCode: status } }));
		});
	});
	const { url, close } = await listen(server, 'http');
	return { url, close, received };
}
