/**
 * Child processes the tests start `detached`: each leads a process group of its own, so that a
 * signal reaches what it started too (n8n's task runners), and Ctrl-C in a terminal does not reach
 * it before its parent has decided how to stop it.
 */
import type { ChildProcess } from 'child_process';

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {}
	}
}

/** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the child has exited. */
export async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
}

/**
 * Kills every process of `children` when this process exits, and on SIGINT/SIGTERM/SIGHUP (their
 * own process groups do not get the terminal's Ctrl-C); after a signal this process exits unless
 * another handler of that signal is still to run (it exits after stopping what it owns).
 */
export function killAtExit(children: Set<ChildProcess>): void {
	process.on('exit', () => {
		for (const child of children) killGroup(child, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			for (const child of children) killGroup(child, 'SIGTERM');
			if (process.listenerCount(signal) === 0) process.exit(130);
		});
	}
}
