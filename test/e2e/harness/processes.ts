/**
 * Ports, HTTP and child processes. Every child process is started in its own process group and
 * killed (SIGTERM, then SIGKILL) on stop, on error, and when this process exits.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'child_process';
import { createServer } from 'net';

import { Agent, fetch as undiciFetch } from 'undici';
import { killAtExit, killGroup, stopGroup } from '../../helpers/processGroup';

export { killGroup };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Ports freePort() handed out in this process: never handed out twice (processes started at once). */
const handedOut = new Set<number>();

export async function freePort(avoid: number[] = [5678, 5679]): Promise<number> {
	for (;;) {
		const port = await new Promise<number>((resolvePort, reject) => {
			const server = createServer();
			server.once('error', reject);
			server.listen(0, '127.0.0.1', () => {
				const address = server.address();
				server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
			});
		});
		if (!avoid.includes(port) && !handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
}

export interface HttpResult<T = unknown> {
	status: number;
	body: T;
	text: string;
	headers: Headers;
}

export async function http<T = any>(
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {},
	timeoutMs = 120_000,
): Promise<HttpResult<T>> {
	const init: RequestInit = { method, headers: { ...headers }, signal: AbortSignal.timeout(timeoutMs) };
	if (body !== undefined) {
		init.body = typeof body === 'string' ? body : JSON.stringify(body);
		(init.headers as Record<string, string>)['content-type'] ??= 'application/json';
	}
	// Node's fetch stops waiting for an answer's headers after 300 s: a longer wait (n8n answering a webhook when
	// an execution of 30,000 SMS ends) goes through an agent of its own.
	const long = timeoutMs > 300_000 ? new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs }) : undefined;
	const send = async () => (long ? ((await undiciFetch(url, { ...(init as object), dispatcher: long })) as unknown as Response) : await fetch(url, init));
	let res: Response;
	try {
		res = await send();
	} catch (error) {
		// A GET whose kept-alive socket n8n closed as it was reused (busy machine): asked again once (the
		// closed socket is not reused). Reads only: a POST the server may have processed is never repeated.
		const code = (error as { cause?: { code?: string } }).cause?.code;
		if (method !== 'GET' || (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET')) throw error;
		res = await send();
	}
	const text = await res.text().finally(() => void long?.close());
	let parsed: unknown = text;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {}
	return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export const children = new Set<ChildProcess>();

let exitHookInstalled = false;
export function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	killAtExit(children);
}

export async function stopChild(child: ChildProcess, graceMs = 8_000): Promise<void> {
	await stopGroup(child, graceMs);
	children.delete(child);
}

/** Runs a command in its own process group (killed with the others on exit); rejects on a non-zero exit. */
export async function run(command: string, args: string[], options: SpawnOptions & { timeoutMs?: number } = {}): Promise<string> {
	installExitHook();
	const { timeoutMs = 300_000, ...spawnOptions } = options;
	return await new Promise((resolvePromise, reject) => {
		const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		children.add(child);
		let stdout = '';
		let stderr = '';
		child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
		child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
		const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			children.delete(child);
			reject(error);
		});
		child.on('exit', (code, signal) => {
			clearTimeout(timer);
			children.delete(child);
			if (code === 0) resolvePromise(stdout);
			else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`));
		});
	});
}

/** This process's environment without npm's and jest's settings (nodedir of Node 20, NODE_ENV=test…). */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const name of Object.keys(env)) {
		if (/^(npm_|JEST_|TS_NODE_)/i.test(name) || ['NODE_OPTIONS', 'NODE_ENV', 'NODE_PATH'].includes(name)) delete env[name];
	}
	return { ...env, ...extra };
}
