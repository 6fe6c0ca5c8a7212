/**
 * The Cloud edition's limiter engine, in place of nodes/SvcMessaging/platform/bottleneck.ts: the
 * part of Bottleneck 2.19.5's API that transport/ uses in one process, with Bottleneck's semantics,
 * on n8n-workflow's `sleep` alone (n8n Cloud's verified nodes may not use timers or Bottleneck).
 *
 * - Jobs wait in one FIFO queue per priority (0 first, 9 last, 5 by default).
 * - A job is *registered* (counted as running, its weight taken from the reservoir) when there is
 *   room: running + weight ≤ maxConcurrent (null: no cap) and weight ≤ reservoir (null: no
 *   reservoir). It starts at max(now, nextStart); nextStart is then its planned start + minTime, so
 *   starts are minTime apart and a start made late by a busy event loop is caught up, as Bottleneck's.
 * - One scheduler loop per limiter, never one per job: it registers and starts the queue's jobs,
 *   sleeping only until the next start is due, and ends when nothing can start; a scheduled job, a
 *   finished one and a settings change wake it. Memory is the queue; an idle limiter holds no sleep.
 * - Settings changes apply to jobs not yet registered, as in Bottleneck; a job is registered only
 *   when its start is next, so an empty reservoir holds every job but the one being timed.
 * - stop(): refuses new jobs; drops the waiting ones unless `dropWaitingJobs: false`.
 * A shared limit (clustered on Redis) does not exist on n8n Cloud: a clustered construction is
 * refused, as are options this engine does not implement (better an error than another limiter).
 */
import { sleep } from 'n8n-workflow';

type Task<R> = (...args: never[]) => R | PromiseLike<R>;
type Listener = (...args: never[]) => void;

interface Job {
	task: Task<unknown>;
	args: unknown[];
	weight: number;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
	next?: Job;
}

/** A FIFO queue as a linked list: no array shifting, nothing kept once a job leaves. */
class Fifo {
	head?: Job;
	tail?: Job;
	length = 0;
	push(job: Job) {
		if (this.tail) this.tail.next = job;
		else this.head = job;
		this.tail = job;
		this.length++;
	}
	shift(): Job | undefined {
		const job = this.head;
		if (!job) return undefined;
		this.head = job.next;
		if (!this.head) this.tail = undefined;
		job.next = undefined;
		this.length--;
		return job;
	}
}

const DEFAULT_PRIORITY = 5;
const UNSUPPORTED = ['highWater', 'strategy', 'penalty', 'reservoirRefreshInterval', 'reservoirIncreaseInterval', 'connection', 'Redis'];
const CLUSTERED = 'No shared rate limit on n8n Cloud: this limiter runs in one process only (a Redis datastore is not available)';

class BottleneckError extends Error {}

class Bottleneck {
	/** Bottleneck's Redis connection: a shared limit, which the Cloud edition does not have. */
	static IORedisConnection = class IORedisConnection {
		constructor(...options: unknown[]);
		constructor() {
			throw new BottleneckError(CLUSTERED);
		}
		disconnect(flush?: boolean): Promise<void>;
		async disconnect(): Promise<void> {}
		on(event: string, listener: Listener): void;
		on(): void {}
	};

	readonly id: string;
	readonly datastore = 'local';
	private settings: { maxConcurrent: number | null; minTime: number; reservoir: number | null };
	private readonly queues = Array.from({ length: 10 }, () => new Fifo());
	private queued = 0;
	/** Registered jobs: waiting for their start, or executing. */
	private registered = 0;
	private executing = 0;
	private nextStart = 0;
	private looping = false;
	private stopped?: { dropWaitingJobs: boolean; enqueueErrorMessage: string };
	private readonly listeners = new Map<string, Array<(...args: unknown[]) => void>>();

	constructor(options: ConstructorOptions = {}) {
		if (options.datastore !== undefined && options.datastore !== 'local') throw new BottleneckError(CLUSTERED);
		this.id = options.id ?? '<no-id>';
		this.settings = { maxConcurrent: null, minTime: 0, reservoir: null };
		this.apply(options);
	}

	private apply(options: ConstructorOptions) {
		const refused = UNSUPPORTED.filter((name) => (options as Record<string, unknown>)[name] != null);
		if (refused.length) throw new BottleneckError(`Not supported by the Cloud edition's limiter: ${refused.join(', ')}`);
		if (options.maxConcurrent !== undefined) this.settings.maxConcurrent = options.maxConcurrent;
		if (options.minTime !== undefined) this.settings.minTime = options.minTime ?? 0;
		if (options.reservoir !== undefined) this.settings.reservoir = options.reservoir;
	}

	async ready(): Promise<void> {}
	/** Changes the settings for every job not yet registered (returns a promise, as Bottleneck does at run time). */
	async updateSettings(options: ConstructorOptions = {}): Promise<Bottleneck> {
		this.apply(options);
		this.wake();
		return this;
	}

	async currentReservoir(): Promise<number | null> {
		return this.settings.reservoir;
	}

	async incrementReservoir(incr = 0): Promise<number | null> {
		if (this.settings.reservoir !== null) this.settings.reservoir += incr;
		const reservoir = this.settings.reservoir;
		this.wake();
		return reservoir;
	}

	async running(): Promise<number> {
		return this.registered;
	}

	counts(): Counts {
		return { RECEIVED: 0, QUEUED: this.queued, RUNNING: this.registered - this.executing, EXECUTING: this.executing };
	}

	on(event: string, listener: Listener): void {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener as (...args: unknown[]) => void]);
	}

	private emit(event: string, ...args: unknown[]) {
		for (const listener of this.listeners.get(event) ?? []) listener(...args);
	}

	schedule<R>(...input: unknown[]): Promise<R> {
		const [options, task, ...args] = (typeof input[0] === 'function' ? [{}, ...input] : input) as [JobOptions, Task<R>, ...unknown[]];
		return new Promise<R>((resolve, reject) => {
			if (this.stopped) return reject(new BottleneckError(this.stopped.enqueueErrorMessage));
			if (options.expiration != null) return reject(new BottleneckError("Not supported by the Cloud edition's limiter: expiration"));
			const priority = Math.min(9, Math.max(0, Math.trunc(options.priority ?? DEFAULT_PRIORITY)));
			const weight = options.weight ?? 1;
			this.queues[priority].push({ task, args, weight, resolve: resolve as (value: unknown) => void, reject });
			this.queued++;
			this.wake();
		});
	}

	/** Stops the limiter: resolves when no job is executing (after the waiting ones, if they are kept). */
	async stop(options: StopOptions = {}): Promise<void> {
		if (this.stopped) throw new BottleneckError('stop() has already been called');
		const dropWaitingJobs = options.dropWaitingJobs ?? true;
		this.stopped = { dropWaitingJobs, enqueueErrorMessage: options.enqueueErrorMessage ?? 'This limiter has been stopped and cannot accept new jobs.' };
		if (dropWaitingJobs) {
			this.dropError = new BottleneckError(options.dropErrorMessage ?? 'This limiter has been stopped.');
			for (let job = this.take(); job; job = this.take()) this.drop(job, false);
		}
		while (this.executing > 0 || (!dropWaitingJobs && this.queued + this.registered > 0)) await this.nextDone();
	}

	private dropError?: BottleneckError;

	/** Rejects a job stop() dropped (`registered`: it was counted as running, waiting for its start). */
	private drop(job: Job, registered = true) {
		if (registered) this.registered -= job.weight;
		job.reject(this.dropError);
		this.emit('dropped', { args: job.args });
	}

	private waitingForDone: Array<() => void> = [];
	private nextDone = () => new Promise<void>((resolve) => this.waitingForDone.push(resolve));

	private peek(): Job | undefined {
		for (const queue of this.queues) if (queue.head) return queue.head;
		return undefined;
	}

	private take(): Job | undefined {
		const job = this.queues.find((queue) => queue.head)?.shift();
		if (job) this.queued--;
		return job;
	}

	private hasRoom(job: Job): boolean {
		const { maxConcurrent, reservoir } = this.settings;
		return (maxConcurrent === null || this.registered + job.weight <= maxConcurrent) && (reservoir === null || job.weight <= reservoir);
	}

	/** Starts the scheduler loop unless it runs (it re-reads everything before each start). */
	private wake() {
		if (this.looping) return;
		this.looping = true;
		void this.loop();
	}

	private async loop() {
		try {
			for (let job = this.peek(); job && this.hasRoom(job) && !this.stopped?.dropWaitingJobs; job = this.peek()) {
				this.take();
				this.registered += job.weight;
				if (this.settings.reservoir !== null) this.settings.reservoir -= job.weight;
				const startAt = Math.max(Date.now(), this.nextStart);
				this.nextStart = startAt + this.settings.minTime;
				// Registered in the caller's turn (as Bottleneck registers on arrival), started after it.
				await (startAt > Date.now() ? sleep(startAt - Date.now()) : Promise.resolve());
				if (this.stopped?.dropWaitingJobs) this.drop(job);
				else this.run(job);
			}
		} finally {
			this.looping = false;
		}
		if (this.queued === 0 && this.registered === 0) this.emit('idle');
	}
	private run(job: Job) {
		this.executing += job.weight;
		const finish = () => {
			this.executing -= job.weight;
			this.registered -= job.weight;
			for (const resolve of this.waitingForDone.splice(0)) resolve();
			this.wake();
		};
		let result: Promise<unknown>;
		try {
			result = Promise.resolve((job.task as (...args: unknown[]) => unknown)(...job.args));
		} catch (error) {
			result = Promise.reject(error);
		}
		result.then(
			(value) => (finish(), job.resolve(value)),
			(error) => (finish(), job.reject(error)),
		);
	}
}
export type ConstructorOptions = {
	maxConcurrent?: number | null;
	minTime?: number | null;
	reservoir?: number | null;
	id?: string;
	datastore?: string;
	[option: string]: unknown;
};
export type JobOptions = { priority?: number; weight?: number; expiration?: number; id?: string };
export type Counts = { RECEIVED: number; QUEUED: number; RUNNING: number; EXECUTING: number };
export type StopOptions = { dropWaitingJobs?: boolean; dropErrorMessage?: string; enqueueErrorMessage?: string };
/** The settings the shared source hands the engine (transport/sharedLimit.ts applySettings). */
export type BottleneckSettings = ConstructorOptions;

export default Bottleneck;
