/** The orchestrator's side of a bench worker process (bench/worker.ts): one scenario at a time over IPC. */
import { fork, type ChildProcess } from 'child_process';
import { join } from 'path';

import { ROOT } from './lib';
import type { FromWorker, NodeScenario, ToWorker, WorkerResult } from './worker';

export class BenchWorker {
	private child: ChildProcess;
	private ready: Promise<void>;
	/** Messages not yet asked for, and the askers waiting for the next one. */
	private inbox: FromWorker[] = [];
	private waiting: Array<{ resolve: (m: FromWorker) => void; reject: (e: Error) => void }> = [];
	private exited: Error | undefined;

	/** `v8Flags`: e.g. the capped memory row's --max-old-space-size */
	constructor(v8Flags: string[] = []) {
		this.child = fork(join(__dirname, 'worker.ts'), [], {
			cwd: ROOT,
			execArgv: [...v8Flags, '--expose-gc', '-r', 'ts-node/register/transpile-only'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		this.child.on('message', (message: FromWorker) => {
			const waiter = this.waiting.shift();
			if (waiter) waiter.resolve(message);
			else this.inbox.push(message);
		});
		this.child.once('exit', (code) => {
			this.exited = new Error(`bench worker exited (${code})`);
			for (const waiter of this.waiting.splice(0)) waiter.reject(this.exited);
		});
		this.ready = this.next().then((m) => {
			if (m.type !== 'ready') throw new Error(`bench worker: expected ready, got ${m.type}`);
		});
	}

	get pid() {
		return this.child.pid;
	}

	private async next(): Promise<FromWorker> {
		const queued = this.inbox.shift();
		if (queued) return queued;
		if (this.exited) throw this.exited;
		return await new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
	}

	private async result(): Promise<WorkerResult> {
		const message = await this.next();
		if (message.type === 'result') return message.result;
		throw new Error(message.type === 'error' ? message.message : `bench worker: unexpected ${message.type}`);
	}

	async run(scenario: NodeScenario, url: string): Promise<WorkerResult> {
		await this.ready;
		this.child.send({ type: 'run', scenario, url } satisfies ToWorker);
		return await this.result();
	}

	/** Prepares the execution and waits at the barrier: `start(startAt)` lets it go. */
	async arm(scenario: NodeScenario, url: string): Promise<{ start: (startAt: number) => Promise<WorkerResult> }> {
		await this.ready;
		this.child.send({ type: 'run', scenario, url, barrier: true } satisfies ToWorker);
		const message = await this.next();
		if (message.type !== 'armed') throw new Error(message.type === 'error' ? message.message : `bench worker: expected armed, got ${message.type}`);
		return {
			start: async (startAt) => {
				this.child.send({ type: 'go', startAt } satisfies ToWorker);
				return await this.result();
			},
		};
	}

	/** The heap a run of `scenario` would start from in this (fresh) process. */
	async baselineMb(scenario: NodeScenario): Promise<number> {
		await this.ready;
		this.child.send({ type: 'baseline', scenario } satisfies ToWorker);
		const message = await this.next();
		if (message.type !== 'baseline') throw new Error(`bench worker: expected baseline, got ${message.type}`);
		return message.heapMb;
	}

	/** SIGKILL: the process dies at once, as in an out-of-memory kill (its shared slots stay taken). */
	kill() {
		this.child.kill('SIGKILL');
	}

	async stop() {
		if (this.child.exitCode !== null || this.exited) return;
		const exited = new Promise((resolve) => this.child.once('exit', resolve));
		this.child.send({ type: 'exit' } satisfies ToWorker);
		await exited;
	}
}
