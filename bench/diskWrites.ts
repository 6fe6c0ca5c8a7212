/**
 * Bytes a process and everything it started wrote to disk, from the kernel's per-process I/O
 * accounting (`write_bytes` of /proc/<pid>/io: what reached the block layer, counted when a page
 * is first dirtied, so the database file, its WAL and n8n's event log alike). A process's figure is
 * its own threads', not its children's: n8n's task runner and PostgreSQL's backends, checkpointer
 * and WAL writer are separate processes, so the tree is read, and read again every few hundred ms
 * while a batch runs, so that a process that starts and ends inside it (an autovacuum worker) is
 * counted up to its last reading.
 */
import { readdirSync, readFileSync } from 'fs';

function writeBytesOf(pid: number): number | undefined {
	try {
		const line = readFileSync(`/proc/${pid}/io`, 'utf8')
			.split('\n')
			.find((l) => l.startsWith('write_bytes:'));
		return line ? Number(line.slice('write_bytes:'.length)) : undefined;
	} catch {
		return undefined; // gone
	}
}

function parentOf(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// "pid (comm) state ppid …": comm may hold spaces and parentheses.
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
	} catch {
		return undefined;
	}
}

/** `root` and every process below it, as /proc shows them now. */
export function processTree(root: number): number[] {
	const children = new Map<number, number[]>();
	for (const name of readdirSync('/proc')) {
		const pid = Number(name);
		if (!Number.isInteger(pid)) continue;
		const parent = parentOf(pid);
		if (parent === undefined) continue;
		if (!children.has(parent)) children.set(parent, []);
		children.get(parent)!.push(pid);
	}
	const tree: number[] = [];
	const queue = [root];
	while (queue.length) {
		const pid = queue.shift()!;
		tree.push(pid);
		queue.push(...(children.get(pid) ?? []));
	}
	return tree;
}

/** The bytes written by the trees of `roots` from start() to stop(). */
export class DiskWrites {
	/** pid → [write_bytes when first seen (0 for a process started after start()), last seen, index of its root] */
	private seen = new Map<number, [number, number, number]>();
	private timer?: NodeJS.Timeout;

	constructor(
		private readonly roots: () => number[],
		private readonly everyMs = 250,
	) {}

	private read(first: boolean) {
		for (const [index, root] of this.roots().entries()) {
			for (const pid of processTree(root)) {
				const bytes = writeBytesOf(pid);
				if (bytes === undefined) continue;
				const known = this.seen.get(pid);
				if (known) known[1] = bytes;
				else this.seen.set(pid, [first ? bytes : 0, bytes, index]);
			}
		}
	}

	start(): this {
		this.seen.clear();
		this.read(true);
		this.timer = setInterval(() => this.read(false), this.everyMs);
		this.timer.unref();
		return this;
	}

	/** Bytes written since start(), in all and per root (in the order of `roots`). */
	stop(): { bytes: number; perRoot: number[] } {
		clearInterval(this.timer);
		this.read(false);
		const perRoot = this.roots().map(() => 0);
		for (const [first, last, index] of this.seen.values()) perRoot[index] += last - first;
		return { bytes: perRoot.reduce((a, b) => a + b, 0), perRoot };
	}
}

/** `work` with the disk writes of the trees of `roots` counted around it. */
export async function countingWrites<T>(roots: () => number[], work: () => Promise<T>): Promise<{ result: T; bytes: number; perRoot: number[] }> {
	const writes = new DiskWrites(roots).start();
	try {
		const result = await work();
		return { result, ...writes.stop() };
	} catch (error) {
		writes.stop();
		throw error;
	}
}
