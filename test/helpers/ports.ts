/** Loopback ports for the real servers of tests and the benchmark. */
import { type ChildProcess } from 'child_process';
import { createConnection, createServer } from 'net';

export async function freeTcpPort(): Promise<number> {
	return await new Promise<number>((resolvePort, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
		});
	});
}

/**
 * A port where no Redis answers, held for the test: every connection is closed at once, as a Redis
 * that is down refuses it. A port merely found free can be taken meanwhile by another suite's server
 * (the adversarial lane's silent TCP proxies run beside npm test), which then answers nothing.
 */
export async function downRedisPort(): Promise<{ port: number; close(): Promise<void> }> {
	const server = createServer((socket) => socket.destroy());
	await new Promise<void>((resolveListen, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolveListen());
	});
	const address = server.address();
	return {
		port: typeof address === 'object' && address ? address.port : 0,
		close: async () => await new Promise<void>((resolveClose) => server.close(() => resolveClose())),
	};
}

export async function waitForPort(port: number, timeoutMs: number, what: string, child?: ChildProcess): Promise<void> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
		const open = await new Promise<boolean>((done) => {
			const socket = createConnection({ host: '127.0.0.1', port }, () => {
				socket.destroy();
				done(true);
			});
			socket.once('error', () => done(false));
		});
		if (open) return;
		if (Date.now() > until) throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, 50));
	}
}
