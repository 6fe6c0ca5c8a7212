/**
 * The emulator in a process of its own (`npm run emulator`, test/emulator/cli.ts), used by the e2e,
 * editor and queue suites, `npm run demo` and the benchmark: it keeps answering and delivering
 * webhooks whatever the calling process is busy with, and its CPU stays out of the caller's figures.
 */
import { spawn, type ChildProcess } from 'child_process';
import { join } from 'path';
import { killAtExit, stopGroup } from './processGroup';
import { FatalWaitError, waitFor } from './waitFor';

const ROOT = join(__dirname, '..', '..');

export interface EmulatorProcessOptions {
	/** default 0: a free port chosen by the emulator */
	port?: number;
	/** every scaled duration (lifecycle, webhooks, review) × this; default 1 */
	timeScale?: number;
	/** default: the emulator's own (token bucket) */
	rateLimit?: 'token-bucket' | 'sliding-window';
	/** the service's distance each way, "ms" or "ms±jitter" (default none) */
	latency?: string;
	/** receives the emulator's stderr */
	log?: (line: string) => void;
}

export interface EmulatorProcess {
	url: string;
	process: ChildProcess;
	stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** An emulator outliving its caller would hold its port. */
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	killAtExit(running);
}

async function stopProcess(child: ChildProcess): Promise<void> {
	await stopGroup(child, 3_000);
	running.delete(child);
}

/** Starts the emulator and resolves once it has printed the URL it listens on. */
export async function startEmulatorProcess(options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
	installExitHook();
	const args = [
		join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
		'--transpile-only',
		join(ROOT, 'test', 'emulator', 'cli.ts'),
		'--port',
		String(options.port ?? 0),
		'--time-scale',
		String(options.timeScale ?? 1),
		...(options.rateLimit ? ['--rate-limit', options.rateLimit] : []),
		...(options.latency ? ['--latency', options.latency] : []),
	];
	// The caller's NODE_OPTIONS (jest's, a profiler's) must not slow or instrument the emulator.
	const env = { ...process.env };
	delete env.NODE_OPTIONS;
	const child = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
	running.add(child);
	let output = '';
	child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => {
		output += chunk.toString();
		options.log?.(`[emulator] ${chunk.toString().trimEnd()}`);
	});
	child.once('exit', () => running.delete(child));
	try {
		const url = await waitFor(
			'the emulator to print its URL',
			() => {
				if (child.exitCode !== null || child.signalCode !== null) throw new FatalWaitError(`emulator exited (${child.exitCode ?? child.signalCode}):\n${output}`);
				return /listening on (http:\/\/\S+)/.exec(output)?.[1];
			},
			60_000,
			25,
		);
		return { url, process: child, stop: async () => await stopProcess(child) };
	} catch (error) {
		await stopProcess(child);
		throw error;
	}
}
