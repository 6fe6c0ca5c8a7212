/**
 * A real Redis Cluster for tests and the benchmark: `masters` redis-server processes (Debian's
 * package) with --cluster-enabled on free loopback ports, each in a temporary folder, joined by
 * `redis-cli --cluster create … --cluster-replicas 0`. No persistence; stopped and removed after.
 */
import { spawnSync, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { live, runningOnly } from './live';
import { makeCertificates, tlsServerArgs, TLS_SERVER_NAME } from './redisTls';
import { killAndWait, spawnRedisServer } from './redisProcess';
import { ensureServicesInstalled } from './services';

export interface RedisCluster {
	nodes: Array<{ host: string; port: number }>;
	/** The nodes as "Redis Cluster Nodes" (and QUEUE_BULL_REDIS_CLUSTER_NODES) take them. */
	nodesText: string;
	/** The CA of the nodes' certificates (for TLS_SERVER_NAME), when they speak TLS */
	ca?: string;
	/** `redis-cli` on one node (-c: follows the cluster's redirections); its output. */
	cli(args: string[], node?: number): string;
	stop(): Promise<void>;
}

/**
 * `tls`: the nodes speak TLS only, between themselves too (tls-cluster), with the certificates of
 * test/helpers/redisTls.ts (made in a folder of their own); `ca` is then their CA.
 */
export async function startRedisCluster(options: { masters?: number; password?: string; tls?: boolean } = {}): Promise<RedisCluster> {
	ensureServicesInstalled('redis');
	const masters = options.masters ?? 3;
	const certificates = options.tls ? mkdtempSync(join(tmpdir(), 'svc-redis-cluster-tls-')) : undefined;
	const ca = certificates ? makeCertificates(certificates).ca : undefined;
	const auth = [
		...(options.password ? ['-a', options.password, '--no-auth-warning'] : []),
		...(certificates ? ['--tls', '--cacert', join(certificates, 'ca.crt'), '--sni', TLS_SERVER_NAME] : []),
	];
	const children: ChildProcess[] = [];
	const dirs: string[] = [];
	const nodes: Array<{ host: string; port: number }> = [];
	const killAll = () => children.forEach((child) => child.kill('SIGKILL'));
	process.once('exit', killAll);
	const stop = async () => {
		process.removeListener('exit', killAll);
		await Promise.all(children.splice(0).map(async (child) => await killAndWait(child, 'SIGTERM')));
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
		if (certificates) rmSync(certificates, { recursive: true, force: true });
	};
	const cli = (args: string[], node = 0) => {
		const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(nodes[node].port), ...auth, ...args], { encoding: 'utf8', timeout: 30_000 });
		if (result.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed (exit ${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
		return result.stdout;
	};
	try {
		for (let i = 0; i < masters; i++) {
			const dir = mkdtempSync(join(tmpdir(), 'svc-redis-cluster-'));
			dirs.push(dir);
			// The cluster bus gets a free port of its own (port + 10000 may not be free, or not exist).
			const argsFor = ([port, busPort]: number[]) => {
				const listen = certificates ? [...tlsServerArgs(certificates, port), '--tls-cluster', 'yes'] : ['--port', String(port)];
				const args = [...listen, '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
					'--cluster-node-timeout', '5000', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
				return options.password ? [...args, '--requirepass', options.password, '--masterauth', options.password] : args;
			};
			const { child, ports } = await spawnRedisServer('redis-server (cluster)', argsFor, { cliArgs: auth, portCount: 2 });
			children.push(child);
			nodes.push({ host: '127.0.0.1', port: ports[0] });
		}
		cli(['--cluster', 'create', ...nodes.map(({ host, port }) => `${host}:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
		// Every node agrees the slots are covered before a client comes (bounded: 20 s).
		for (const until = Date.now() + 20_000; ; ) {
			if (nodes.every((_, i) => /cluster_state:ok/.test(cli(['cluster', 'info'], i)))) break;
			if (Date.now() > until) throw new Error('the Redis Cluster did not reach cluster_state:ok within 20 s');
			await new Promise((r) => setTimeout(r, 100));
		}
	} catch (error) {
		await stop();
		throw error;
	}
	return { nodes, nodesText: nodes.map(({ host, port }) => `${host}:${port}`).join(','), ca, cli, stop };
}

/** A 3-master cluster for a block's tests; the package's limiters and clients close before it stops. */
export function useRedisCluster(options: { password?: string; tls?: boolean } = {}): RedisCluster {
	let running: RedisCluster | undefined;
	beforeAll(async () => {
		running = await startRedisCluster(options);
	}, 120_000);
	afterAll(async () => {
		await closeSharedLimiters();
		await closeRedisClients();
		await running?.stop();
		running = undefined;
	});
	return live(runningOnly('useRedisCluster()', () => running));
}
