/**
 * Emulator clock: real time plus an offset that `advance` moves forward, and a timer queue.
 * Durations are multiplied by the time scale. Due tasks run on a real timer; `advance` runs the tasks
 * that fall inside the advanced span one by one, in time order, moving the clock to each task's time
 * and awaiting it (so a retry scheduled by a task inside the span also runs). While an advance runs,
 * the real timer runs nothing, and advances queue behind each other.
 */

type TaskFn = (at: number) => unknown;

interface Task {
	at: number;
	seq: number;
	run: TaskFn;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export class Clock {
	private offset = 0;
	private seq = 0;
	private heap: Task[] = [];
	private timer: NodeJS.Timeout | undefined;
	private armedAt = Infinity;
	private stopped = false;
	private advancing = false;
	private advances: Promise<void> = Promise.resolve();

	constructor(readonly timeScale: number) {}

	now(): number {
		return Date.now() + this.offset;
	}

	/** A spec or convention duration in emulator milliseconds after the time scale. */
	scale(ms: number): number {
		return ms * this.timeScale;
	}

	/** Runs `run(at)` when the clock reaches `at` (emulator milliseconds). */
	schedule(at: number, run: TaskFn): void {
		if (this.stopped) return;
		this.push({ at, seq: this.seq++, run });
		if (at < this.armedAt && !this.advancing) this.arm();
	}

	/** Drops every pending task (reset). */
	clear(): void {
		this.heap = [];
		this.disarm();
	}

	stop(): void {
		this.stopped = true;
		this.clear();
	}

	pendingTasks(): number {
		return this.heap.length;
	}

	advance(ms: number): Promise<void> {
		const run = this.advances.then(() => this.runAdvance(ms));
		this.advances = run.catch(() => undefined);
		return run;
	}

	private async runAdvance(ms: number): Promise<void> {
		this.advancing = true;
		this.disarm();
		try {
			const target = this.now() + ms;
			for (;;) {
				const task = this.heap[0];
				if (!task || task.at > target || this.stopped) break;
				this.pop();
				const now = this.now();
				if (task.at > now) this.offset += task.at - now;
				await this.execute(task);
			}
			const now = this.now();
			if (target > now) this.offset += target - now;
		} finally {
			this.advancing = false;
			this.arm();
		}
	}

	private runDue(): void {
		this.timer = undefined;
		this.armedAt = Infinity;
		if (this.advancing) return;
		const now = this.now();
		while (this.heap.length > 0 && this.heap[0].at <= now && !this.stopped) {
			void this.execute(this.pop());
		}
		this.arm();
	}

	private async execute(task: Task): Promise<void> {
		try {
			await task.run(task.at);
		} catch (error) {
			process.stderr.write(`svc emulator: scheduled task failed: ${(error as Error)?.message ?? error}\n`);
		}
	}

	private disarm(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		this.armedAt = Infinity;
	}

	private arm(): void {
		this.disarm();
		const next = this.heap[0];
		if (!next || this.stopped) return;
		const delay = Math.min(Math.max(0, Math.ceil(next.at - this.now())), MAX_TIMER_MS);
		this.armedAt = next.at;
		this.timer = setTimeout(() => this.runDue(), delay);
		this.timer.unref();
	}

	// Binary min-heap on (at, seq).
	private less(a: Task, b: Task): boolean {
		return a.at < b.at || (a.at === b.at && a.seq < b.seq);
	}

	private push(task: Task): void {
		const heap = this.heap;
		heap.push(task);
		let i = heap.length - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if (!this.less(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	}

	private pop(): Task {
		const heap = this.heap;
		const top = heap[0];
		const last = heap.pop() as Task;
		if (heap.length > 0) {
			heap[0] = last;
			let i = 0;
			for (;;) {
				const l = 2 * i + 1;
				const r = l + 1;
				let m = i;
				if (l < heap.length && this.less(heap[l], heap[m])) m = l;
				if (r < heap.length && this.less(heap[r], heap[m])) m = r;
				if (m === i) break;
				[heap[i], heap[m]] = [heap[m], heap[i]];
				i = m;
			}
		}
		return top;
	}
}
