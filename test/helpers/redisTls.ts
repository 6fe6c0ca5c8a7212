/**
 * A real redis-server that speaks TLS only, with a certificate for `redis.test` (not for 127.0.0.1,
 * where it listens) signed by a CA made here with openssl: a private CA, as managed or in-house
 * Redis have. Nothing is committed: the keys are made at test time in a temporary folder.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { killAndWait, spawnRedisServer, type RedisProcess } from './redisProcess';
import { ensureServicesInstalled } from './services';

export const TLS_SERVER_NAME = 'redis.test';

export interface TlsRedis {
	host: string;
	port: number;
	/** The CA's certificate (PEM) */
	ca: string;
	/** Another CA's certificate (PEM), which did not sign the server's */
	otherCa: string;
	stop(): Promise<void>;
}

function openssl(dir: string, args: string[]): void {
	const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
	if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
}

/** The redis-server arguments of a TLS-only server with these certificates (made by `makeCertificates`). */
export function tlsServerArgs(dir: string, port: number): string[] {
	return ['--port', '0', '--tls-port', String(port), '--tls-cert-file', join(dir, 'server.crt'), '--tls-key-file', join(dir, 'server.key'),
		'--tls-ca-cert-file', join(dir, 'ca.crt'), '--tls-auth-clients', 'no'];
}

/** A CA, another CA, and a certificate for TLS_SERVER_NAME signed by the first, in `dir`. */
export function makeCertificates(dir: string): { ca: string; otherCa: string } {
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=SVC test CA']);
	openssl(dir, ['req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=Another CA']);
	openssl(dir, ['req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${TLS_SERVER_NAME}`]);
	writeFileSync(join(dir, 'san.ext'), `subjectAltName=DNS:${TLS_SERVER_NAME}\n`);
	openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext']);
	return { ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), otherCa: readFileSync(join(dir, 'other.crt'), 'utf8') };
}

export async function startTlsRedis(options: { password?: string } = {}): Promise<TlsRedis> {
	ensureServicesInstalled('redis');
	const dir = mkdtempSync(join(tmpdir(), 'svc-redis-tls-'));
	const { ca, otherCa } = makeCertificates(dir);
	const argsFor = ([port]: number[]) => {
		const args = [...tlsServerArgs(dir, port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
		return options.password ? [...args, '--requirepass', options.password] : args;
	};
	const cliArgs = [...(options.password ? ['-a', options.password, '--no-auth-warning'] : []), '--tls', '--cacert', join(dir, 'ca.crt'), '--sni', TLS_SERVER_NAME];
	let started: RedisProcess;
	try {
		started = await spawnRedisServer('redis-server (TLS)', argsFor, { cliArgs, cwd: dir });
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	const { child, ports: [port] } = started;
	const kill = () => child.kill('SIGKILL');
	process.once('exit', kill);
	const stop = async () => {
		process.removeListener('exit', kill);
		await killAndWait(child, 'SIGTERM');
		rmSync(dir, { recursive: true, force: true });
	};
	return { host: '127.0.0.1', port, ca, otherCa, stop };
}
