/** An n8n process of a pinned version with the package loaded: its environment, CLI, start and stop. */
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { FatalWaitError, waitFor } from '../../helpers/waitFor';
import { N8nClient } from './client';
import { forEdition, selectedEdition, stageCloudPackage } from './edition';
import { installPackedPackage, stagePackage } from './pack';
import { children, freePort, http, installExitHook, killGroup, stopChild } from './processes';
import { installMode, isInstalled, n8nEnv, targetInfo, type Target, type TargetInfo } from './target';
import type { CredentialJson, WorkflowJson } from './workflows';

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
	/** false: start n8n without the package (it is then installed the way a user does, e.g. from a registry) */
	installPackage?: boolean;
	/**
	 * The n8n command and its flags, default `['start']`. `['worker', '--concurrency=5']` starts a
	 * queue-mode worker: it has no REST API and no owner; `port` is then its health server
	 * (`QUEUE_HEALTH_CHECK_PORT`) and it is ready when `/healthz/readiness` answers 200 (database
	 * and Redis connected). Queue mode itself comes from `env` (EXECUTIONS_MODE, QUEUE_BULL_REDIS_*,
	 * DB_*): see test/queue/.
	 */
	command?: string[];
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
	/** set by restart(): the package and imports are in the folder already */
	private restarting = false;
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

	/** n8n's environment: this instance's folder, ports and settings, then N8nOptions.env, then `extra`. */
	env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
		const settings = { userFolder: this.userFolder, port: this.port, url: this.url, brokerPort: this.brokerPort };
		return { ...n8nEnv(this.info, settings), ...(this.options.env ?? {}), ...extra };
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

	/** Puts the package into this n8n's nodes folder: the Cloud edition's (E2E_EDITION=cloud), or as E2E_INSTALL says (default: copied + linked). */
	async installPackage(): Promise<void> {
		const t0 = Date.now();
		if (selectedEdition() === 'cloud') stageCloudPackage(this.userFolder);
		else if (installMode() === 'pack') await installPackedPackage(this.userFolder, this.env().PATH ?? '', (line) => this.log(line));
		else stagePackage(this.userFolder);
		this.timings.packageMs = Date.now() - t0;
	}

	async importCredentials(credentials: CredentialJson[]): Promise<void> {
		const file = join(this.userFolder, 'e2e-credentials.json');
		writeFileSync(file, JSON.stringify(forEdition(credentials), null, 2));
		await this.cliOk(['import:credentials', `--input=${file}`]);
		rmSync(file, { force: true });
	}

	async importWorkflows(workflows: WorkflowJson[]): Promise<void> {
		const file = join(this.userFolder, 'e2e-workflows.json');
		writeFileSync(file, JSON.stringify(forEdition(workflows.map((w) => ({ ...w, active: false }))), null, 2));
		await this.cliOk(['import:workflow', `--input=${file}`]);
		rmSync(file, { force: true });
	}

	private async boot(): Promise<void> {
		const t0 = Date.now();
		if (!isInstalled(this.info)) {
			throw new Error(`n8n ${this.info.version} is not installed: run \`bash scripts/install-n8n.sh ${this.info.target}\``);
		}
		if (!this.restarting) {
			if (this.options.installPackage !== false) await this.installPackage();
			this.brokerPort = await freePort();
			if (this.options.credentials?.length) await this.importCredentials(this.options.credentials);
			if (this.options.workflows?.length) await this.importWorkflows(this.options.workflows);
		}
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
			// An exit nobody asked for (not 0, not a stop's signal) shows why: n8n's last lines.
			this.log(code ? `n8n exited (${code}); its last lines:\n${this.recentOutput(25)}` : `n8n exited (${code})`);
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

	/** The running `n8n` process's id (its task runner is a child of it), undefined when stopped. */
	get pid(): number | undefined {
		return this.server?.pid;
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

	/** SIGKILL, as an out-of-memory kill or a container stopped without grace: n8n saves nothing more. */
	async kill(): Promise<void> {
		const server = this.server;
		if (!server) return;
		const exited = new Promise((resolve) => server.once('exit', resolve));
		killGroup(server, 'SIGKILL');
		await exited;
		this.server = undefined;
	}

	/**
	 * Starts n8n again on the same folder, database and port: after kill(), n8n's own recovery runs;
	 * a server still running is stopped first, as `n8n` is on a graceful restart (else it would be
	 * left running, holding the port, once the new one is started).
	 */
	async restart(): Promise<void> {
		if (this.server) await stopChild(this.server);
		this.server = undefined;
		this.restarting = true;
		await this.boot();
	}

	async stop(): Promise<void> {
		// CLI commands (import, execute) are awaited where they run; only the server is left.
		if (this.server) await stopChild(this.server);
		this.server = undefined;
		if (this.ownFolder && !process.env.E2E_KEEP_FOLDER) rmSync(this.userFolder, { recursive: true, force: true });
	}
}
