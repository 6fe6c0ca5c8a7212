/**
 * An HTTPS proxy for npm (npm's own `https-proxy` setting) that answers every CONNECT to the npm
 * registry host with the local registry: TLS is ended here with a certificate made for that host,
 * which npm trusts through its `cafile` setting, and the requests go on to the local registry over
 * loopback. A company's intercepting proxy in front of the npm registry works the same way.
 *
 * Why: n8n 2.41.1 takes a registry other than the public one (N8N_COMMUNITY_PACKAGES_REGISTRY) only
 * with a licence (`feat:communityNodes:customRegistry`). N8N_COMMUNITY_PACKAGES installs at start-up,
 * before n8n's end-to-end switch (E2E_TESTS) could turn that feature on, so the environment-managed
 * route is tested with n8n's default registry setting, and npm reaches the local registry through
 * this proxy. n8n's own HTTP look-up of the version goes to the real registry, fails (the package is
 * not there) and n8n falls back to `npm view`, which comes here.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { createServer as createHttpServer, request, type IncomingMessage, type ServerResponse } from 'http';
import { createServer as createHttpsServer } from 'https';
import { connect, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { freePort } from './processes';

export interface NpmProxy {
	/** for npm_config_https_proxy */
	proxyUrl: string;
	/** for npm_config_cafile: the certificate this proxy shows for the registry host */
	cafile: string;
	/** CONNECT requests answered (host:port), in order */
	connects: string[];
	stop(): Promise<void>;
}

/** `registryHost`: the host npm is configured for (from `npm config get registry`); `target`: the local registry's URL. */
export async function startNpmProxy(registryHost: string, target: string): Promise<NpmProxy> {
	const folder = mkdtempSync(join(tmpdir(), 'svc-npm-proxy-'));
	const key = join(folder, 'key.pem');
	const cafile = join(folder, 'cert.pem');
	const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cafile, '-days', '1', '-subj', `/CN=${registryHost}`, '-addext', `subjectAltName=DNS:${registryHost}`], { encoding: 'utf8' });
	if (made.status !== 0) throw new Error(`openssl could not make the proxy's certificate: ${made.stderr}`);
	const upstream = new URL(target);
	const forward = (req: IncomingMessage, res: ServerResponse) => {
		const out = request(
			{ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		out.on('error', () => res.destroy());
		req.pipe(out);
	};
	const tlsFront = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cafile) }, forward);
	const connects: string[] = [];
	const proxy = createHttpServer((_req, res) => res.writeHead(405).end('CONNECT only'));
	const tunnels = new Set<Socket>();
	proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
		connects.push(req.url ?? '');
		tunnels.add(socket);
		socket.once('close', () => tunnels.delete(socket));
		if (req.url === upstream.host) {
			// The tarballs: the local registry names them by its own address, which npm also asks for
			// through this proxy. A plain tunnel to it.
			const onward = connect(Number(upstream.port), upstream.hostname, () => {
				socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
				onward.pipe(socket).pipe(onward);
			});
			onward.on('error', () => socket.destroy());
			socket.once('close', () => onward.destroy());
			return;
		}
		if (req.url !== `${registryHost}:443`) {
			// Nothing else: npm has no other reason to come here.
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		tlsFront.emit('connection', socket);
	});
	const port = await freePort();
	await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
	return {
		proxyUrl: `http://127.0.0.1:${port}`,
		cafile,
		connects,
		stop: async () => {
			// CONNECT tunnels are no longer the servers' connections: end them here.
			for (const socket of tunnels) socket.destroy();
			proxy.closeAllConnections();
			tlsFront.closeAllConnections();
			await new Promise<void>((resolve) => proxy.close(() => resolve()));
			rmSync(folder, { recursive: true, force: true });
		},
	};
}
