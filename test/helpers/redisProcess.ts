/**
 * One redis-server process, confirmed to be the one answering its port.
 *
 * A port merely found free can be taken by another suite's server before Redis binds it (npm test's
 * suites and the adversarial lane's proxies run side by side). Redis then exits "address already in
 * use" while the other process answers the port, and a check that only connects is fooled: a cluster
 * was once created on a node that was not there. So a start is confirmed by the server's own process
 * id (INFO server) and, on ports the helper chose, retried on fresh ones.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';

import { freeTcpPort, waitForPort } from './ports';

export interface RedisProcess {
	child: ChildProcess;
	/** the ports the server was started with: the first is the one clients use */
	ports: number[];
}

const ATTEMPTS = 4;

/**
 * `argsFor(ports)`: the server's arguments for `portCount` ports; `cliArgs`: what redis-cli needs to
 * ask it (password, TLS). `ports`: fixed ports (a restart on the same port), tried once.
 */
export async function spawnRedisServer(
	what: string,
	argsFor: (ports: number[]) => string[],
	options: { cliArgs?: string[]; portCount?: number; ports?: number[]; cwd?: string } = {},
): Promise<RedisProcess> {
	const attempts = options.ports ? 1 : ATTEMPTS;
	for (let attempt = 1; ; attempt++) {
		const ports = options.ports ?? (await distinctFreePorts(options.portCount ?? 1));
		const child = spawn('redis-server', argsFor(ports), { cwd: options.cwd, stdio: 'ignore' });
		try {
			await waitForOwnRedis(what, ports[0], child, options.cliArgs ?? []);
			return { child, ports };
		} catch (error) {
			await killAndWait(child);
			if (attempt >= attempts) throw error;
		}
	}
}

async function distinctFreePorts(count: number): Promise<number[]> {
	const ports = new Set<number>();
	while (ports.size < count) ports.add(await freeTcpPort());
	return [...ports];
}

/** Until the server on `port` says it is `child` (its INFO's process_id), or `child` has exited. */
async function waitForOwnRedis(what: string, port: number, child: ChildProcess, cliArgs: string[]): Promise<void> {
	await waitForPort(port, 10_000, what, child);
	for (const until = Date.now() + 10_000; ; ) {
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) after port ${port} answered: another process holds the port`);
		}
		const info = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...cliArgs, 'info', 'server'], { encoding: 'utf8', timeout: 5_000 });
		const pid = /process_id:(\d+)/.exec(info.stdout ?? '')?.[1];
		if (pid !== undefined && Number(pid) === child.pid) return;
		if (pid !== undefined) throw new Error(`${what}: another Redis (process ${pid}) answers port ${port}`);
		if (Date.now() > until) throw new Error(`${what} on port ${port} did not answer INFO within 10 s: ${(info.stderr || info.stdout || '').trim()}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	child.kill(signal);
	await exited;
}
