/**
 * Real Redis (and PostgreSQL, for the queue-mode bed) for tests and the benchmark: Debian's
 * packages, installed by scripts/install-services.sh when missing, started on free ports in
 * temporary folders and stopped afterwards. Never a system service.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { createConnection, createServer } from 'net';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..');

/** Runs scripts/install-services.sh (a no-op when everything is there). */
export function ensureServicesInstalled(which: 'redis' | 'all' = 'all'): void {
	const result = spawnSync('bash', [join(ROOT, 'scripts', 'install-services.sh'), which], { stdio: 'inherit' });
	if (result.status !== 0) throw new Error(`scripts/install-services.sh ${which} failed (exit ${result.status})`);
}

export async function freeTcpPort(): Promise<number> {
	return await new Promise<number>((resolvePort, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
		});
	});
}

async function waitForPort(port: number, timeoutMs: number, what: string, child?: ChildProcess): Promise<void> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
		const open = await new Promise<boolean>((done) => {
			const socket = createConnection({ host: '127.0.0.1', port }, () => {
				socket.destroy();
				done(true);
			});
			socket.once('error', () => done(false));
		});
		if (open) return;
		if (Date.now() > until) throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

export interface RedisServer {
	host: string;
	port: number;
	/** Stops the server (SIGKILL when `abrupt`, as a crash); the folder is removed. */
	stop(abrupt?: boolean): Promise<void>;
	/** Starts it again on the same port (empty: no persistence). */
	restart(): Promise<void>;
}

/** redis-server on a free port, no persistence, in a temporary folder. */
export async function startRedis(options: { port?: number; password?: string } = {}): Promise<RedisServer> {
	ensureServicesInstalled('redis');
	const port = options.port ?? (await freeTcpPort());
	const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
	let child: ChildProcess | undefined;
	const start = async () => {
		const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
		if (options.password) args.push('--requirepass', options.password);
		child = spawn('redis-server', args, { stdio: 'ignore' });
		await waitForPort(port, 10_000, 'redis-server', child);
	};
	const stopChild = async (abrupt = false) => {
		const running = child;
		child = undefined;
		if (!running || running.exitCode !== null) return;
		const exited = new Promise<void>((r) => running.once('exit', () => r()));
		running.kill(abrupt ? 'SIGKILL' : 'SIGTERM');
		await exited;
	};
	process.once('exit', () => child?.kill('SIGKILL'));
	await start();
	return {
		host: '127.0.0.1',
		port,
		async stop(abrupt = false) {
			await stopChild(abrupt);
			rmSync(dir, { recursive: true, force: true });
		},
		async restart() {
			await stopChild();
			await start();
		},
	};
}
