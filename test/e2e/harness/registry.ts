/**
 * A local npm registry (verdaccio, installed by scripts/install-registry.sh) on a free loopback port in
 * a temporary folder, with this package published to it from its `npm pack` tarball. Our package is
 * served only from here; every other package (the package's runtime dependencies) is proxied from
 * the npm registry this machine's npm uses, as a company registry does.
 */
import { spawn, type ChildProcess } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { FatalWaitError, waitFor } from '../../helpers/waitFor';
import { packPackage } from './pack';
import { children, freePort, http, installExitHook, npmEnv, run, stopChild } from './processes';
import { PACKAGE_NAME, ROOT, targetInfo } from './target';

export const VERDACCIO_VERSION = '6.10.4';
export const VERDACCIO_DIR = join(ROOT, '.n8n-e2e', `verdaccio-${VERDACCIO_VERSION}`);

export interface LocalRegistry {
	/** e.g. http://127.0.0.1:40123 (no trailing slash) */
	url: string;
	/** the npm registry this machine's npm uses, which the local registry proxies for other packages */
	upstream: string;
	/** Publishes this checkout's `npm pack` tarball under `version` (tag `latest`). */
	publish(version: string): Promise<void>;
	/** Publishes another package folder's `npm pack` tarball as it is (the n8n Cloud edition: cloud/dist/package). */
	publishFolder(folder: string): Promise<void>;
	/** The versions the registry serves for this package, and its `latest` tag. */
	versions(): Promise<{ versions: string[]; latest?: string }>;
	stop(): Promise<void>;
}

/** The n8n Cloud edition's package (cloud/package.json): served only from here too. */
export const CLOUD_PACKAGE_NAME = 'n8n-nodes-svc-messaging-cloud';

export async function startRegistry(log: (line: string) => void = () => undefined): Promise<LocalRegistry> {
	installExitHook();
	const bin = join(VERDACCIO_DIR, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
	if (!existsSync(join(VERDACCIO_DIR, '.install-complete'))) throw new Error('verdaccio is not installed: run `bash scripts/install-registry.sh`');
	const folder = mkdtempSync(join(tmpdir(), 'svc-registry-'));
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const upstream = (await run('npm', ['config', 'get', 'registry'], { env: npmEnv() })).trim();
	writeFileSync(
		join(folder, 'config.yaml'),
		[
			`storage: ${join(folder, 'storage')}`,
			'auth:',
			'  htpasswd:',
			`    file: ${join(folder, 'htpasswd')}`,
			'    max_users: 1',
			'uplinks:',
			'  upstream:',
			`    url: ${upstream}`,
			'packages:',
			`  '${PACKAGE_NAME}':`,
			'    access: $all',
			'    publish: $authenticated',
			`  '${CLOUD_PACKAGE_NAME}':`,
			'    access: $all',
			'    publish: $authenticated',
			"  '**':",
			'    access: $all',
			'    publish: $authenticated',
			'    proxy: upstream',
			'log: { type: stdout, format: json, level: warn }',
			'',
		].join('\n'),
	);
	const output: string[] = [];
	const child: ChildProcess = spawn(targetInfo('2').nodeBin, [bin, '--config', join(folder, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
		env: npmEnv(),
		cwd: folder,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	children.add(child);
	const collect = (d: Buffer) => output.push(...d.toString().split('\n').filter(Boolean).slice(-200));
	child.stdout!.on('data', collect);
	child.stderr!.on('data', collect);
	let exited = false;
	child.once('exit', () => (exited = true));
	const stop = async () => {
		await stopChild(child);
		rmSync(folder, { recursive: true, force: true });
	};
	try {
		await waitFor(
			'verdaccio to answer /-/ping',
			async () => {
				if (exited) throw new FatalWaitError(`verdaccio exited:\n${output.slice(-30).join('\n')}`);
				const res = await http('GET', `${url}/-/ping`, undefined, {}, 2_000).catch(() => undefined);
				return res?.status === 200 ? true : undefined;
			},
			60_000,
			200,
		);
		// The one user that may publish (max_users: 1); its token goes to npm on the command line only.
		const user = await http<{ token?: string }>('PUT', `${url}/-/user/org.couchdb.user:publisher`, {
			name: 'publisher',
			password: `local-${port}-${Date.now()}`,
		});
		if (user.status !== 201 || !user.body.token) throw new Error(`verdaccio refused to add the publishing user: ${user.status} ${user.text}`);
		const token = user.body.token;
		log(`local registry ${url} (verdaccio ${VERDACCIO_VERSION}; other packages from the npm registry)`);

		const publishTarball = async (tarball: string, version?: string): Promise<void> => {
			const dir = mkdtempSync(join(tmpdir(), 'svc-publish-'));
			try {
				await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
				const manifestPath = join(dir, 'package.json');
				const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; version: string };
				manifest.version = version ?? manifest.version;
				writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
				// For this registry only: no provenance (that needs a CI identity) and none of the
				// package's scripts (prepublishOnly's guard stays in force for the real publish).
				await run(
					'npm',
					['publish', dir, `--registry=${url}/`, '--provenance=false', '--ignore-scripts', '--tag=latest', `--//127.0.0.1:${port}/:_authToken=${token}`],
					{ env: npmEnv(), cwd: dir, timeoutMs: 120_000 },
				);
				log(`published ${manifest.name}@${manifest.version} to ${url}`);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		};
		const publish = async (version: string) => await publishTarball((await packPackage()).tarball, version);
		const publishFolder = async (folder: string): Promise<void> => {
			const out = mkdtempSync(join(tmpdir(), 'svc-pack-'));
			try {
				const [{ filename }] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: folder, env: npmEnv() })) as Array<{ filename: string }>;
				await publishTarball(join(out, filename));
			} finally {
				rmSync(out, { recursive: true, force: true });
			}
		};
		const versions = async () => {
			const res = await http<{ versions?: Record<string, unknown>; 'dist-tags'?: { latest?: string } }>('GET', `${url}/${PACKAGE_NAME}`);
			return { versions: Object.keys(res.body?.versions ?? {}), latest: res.body?.['dist-tags']?.latest };
		};
		return { url, upstream, publish, publishFolder, versions, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
