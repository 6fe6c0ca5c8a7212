/**
 * Real Redis (and PostgreSQL, for the queue-mode bed) for tests and the benchmark: Debian's
 * packages, installed by scripts/install-services.sh when missing, started on free ports in
 * temporary folders and stopped afterwards. Never a system service.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncOptions } from 'child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

import { freeTcpPort, waitForPort } from './ports';
import { killAndWait, spawnRedisServer } from './redisProcess';

const ROOT = resolve(__dirname, '..', '..');

/** Whether Debian's redis-server is installed (npm run dev and demo use one only then: they install nothing). */
export function redisInstalled(): boolean {
	return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs scripts/install-services.sh (a no-op when everything is there). */
export function ensureServicesInstalled(which: 'redis' | 'all' = 'all'): void {
	const result = spawnSync('bash', [join(ROOT, 'scripts', 'install-services.sh'), which], { stdio: 'inherit' });
	if (result.status !== 0) throw new Error(`scripts/install-services.sh ${which} failed (exit ${result.status})`);
}

export { downRedisPort, freeTcpPort, waitForPort } from './ports';

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
	const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
	let port = options.port;
	let child: ChildProcess | undefined;
	const start = async () => {
		const argsFor = ([listen]: number[]) => {
			const args = ['--port', String(listen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
			return options.password ? [...args, '--requirepass', options.password] : args;
		};
		const cliArgs = options.password ? ['-a', options.password, '--no-auth-warning'] : [];
		const started = await spawnRedisServer('redis-server', argsFor, { cliArgs, ports: port === undefined ? undefined : [port] });
		child = started.child;
		port = started.ports[0];
	};
	const stopChild = async (abrupt = false) => {
		const running = child;
		child = undefined;
		if (running) await killAndWait(running, abrupt ? 'SIGKILL' : 'SIGTERM');
	};
	process.once('exit', () => child?.kill('SIGKILL'));
	await start();
	return {
		host: '127.0.0.1',
		port: port!,
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

export interface PostgresServer {
	host: string;
	port: number;
	database: string;
	user: string;
	password: string;
	/** the postmaster's process id (its backends, checkpointer and WAL writer are its children) */
	pid: number;
	/** Runs SQL as the superuser over the local socket; answers psql's unaligned, tuples-only output. */
	sql(query: string): string;
	/** Stops the server (fast shutdown; SIGKILL after 10 s) and removes its folder. */
	stop(): Promise<void>;
}

/** The newest PostgreSQL of Debian's packages: /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string {
	const base = '/usr/lib/postgresql';
	const versions = existsSync(base)
		? readdirSync(base)
				.filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'postgres')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (!versions.length) throw new Error(`No PostgreSQL under ${base}: run scripts/install-services.sh`);
	return join(base, versions[0], 'bin');
}

/**
 * The user PostgreSQL runs as. It refuses root: as root, the `postgres` system user of the Debian
 * package (its processes started with that uid/gid, as `runuser -u postgres --` would, but without
 * a runuser process in between, so that signals reach the server itself); otherwise this user.
 */
function postgresIdentity(): { uid?: number; gid?: number } {
	if (process.getuid?.() !== 0) return {};
	const id = (flag: string) => {
		const result = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
		if (result.status !== 0) throw new Error('No `postgres` system user (it comes with the Debian postgresql package): run scripts/install-services.sh');
		return Number(result.stdout.trim());
	};
	return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL server of its own: `initdb` into a temporary folder, `postgres` on a free port on
 * 127.0.0.1 (socket in the same folder; durability off, it is a test database, unless `durable`:
 * PostgreSQL's own defaults, as a production database runs, for what a benchmark writes), and a
 * database and a password user for n8n. Never the system cluster or service.
 */
export async function startPostgres(
	options: { port?: number; database?: string; user?: string; password?: string; durable?: boolean } = {},
): Promise<PostgresServer> {
	ensureServicesInstalled('all');
	const bin = postgresBinDir();
	const identity = postgresIdentity();
	const port = options.port ?? (await freeTcpPort());
	const database = options.database ?? 'n8n';
	const user = options.user ?? 'n8n';
	const password = options.password ?? `pw-${Math.random().toString(36).slice(2)}`;
	const dir = mkdtempSync(join(tmpdir(), 'svc-postgres-'));
	const data = join(dir, 'data');
	if (identity.uid !== undefined) chownSync(dir, identity.uid, identity.gid!);
	const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, LC_ALL: 'C', LANG: 'C', PGHOST: dir, PGPORT: String(port) };
	delete env.PGDATABASE;
	delete env.PGUSER;
	delete env.PGPASSWORD;
	const run = (command: string, args: string[], input?: string) => {
		const spawnOptions: SpawnSyncOptions = { ...identity, cwd: dir, env, encoding: 'utf8', input, timeout: 60_000 };
		const result = spawnSync(join(bin, command), args, spawnOptions);
		if (result.status !== 0) {
			throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal}): ${String(result.stderr || result.stdout || result.error).trim()}`);
		}
		return String(result.stdout);
	};

	let child: ChildProcess | undefined;
	let output = '';
	const killOnExit = () => child?.kill('SIGKILL');
	const stop = async () => {
		process.removeListener('exit', killOnExit);
		const running = child;
		child = undefined;
		if (running && running.exitCode === null && running.signalCode === null) {
			const exited = new Promise<void>((r) => running.once('exit', () => r()));
			running.kill('SIGINT'); // fast shutdown
			const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
			await exited;
			clearTimeout(timer);
		}
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		// Local (socket) connections trusted: only this user can enter the 0700 folder. TCP needs the password.
		run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync']);
		const args = ['-D', data, '-p', String(port), '-k', dir, '-h', '127.0.0.1'];
		const settings = options.durable ? ['max_connections=200'] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200'];
		for (const setting of settings) args.push('-c', setting);
		child = spawn(join(bin, 'postgres'), args, { ...identity, cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
		process.on('exit', killOnExit);
		const collect = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
		child.stdout!.on('data', collect);
		child.stderr!.on('data', collect);
		const started = child;
		await waitForPort(port, 30_000, 'postgres', child);
		// Listening comes before accepting connections: wait for pg_isready.
		for (const until = Date.now() + 30_000; ; ) {
			if (started.exitCode !== null) throw new Error(`postgres exited (${started.exitCode}):\n${output}`);
			const ready = spawnSync(join(bin, 'pg_isready'), ['-h', dir, '-p', String(port), '-U', 'postgres'], { ...identity, env });
			if (ready.status === 0) break;
			if (Date.now() > until) throw new Error(`postgres did not become ready:\n${output}`);
			await new Promise((r) => setTimeout(r, 100));
		}
		const quoted = password.replace(/'/g, "''");
		run('psql', ['-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-q'],
			`CREATE ROLE "${user}" LOGIN PASSWORD '${quoted}';\nCREATE DATABASE "${database}" OWNER "${user}";\n`);
	} catch (error) {
		await stop();
		throw new Error(`Starting PostgreSQL failed: ${(error as Error).message}${output ? `\n${output}` : ''}`);
	}
	const sql = (query: string) => run('psql', ['-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-U', 'postgres', '-d', database, '-qAt', '-c', query]).trim();
	return { host: '127.0.0.1', port, database, user, password, pid: child!.pid!, sql, stop };
}
