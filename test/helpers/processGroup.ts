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
