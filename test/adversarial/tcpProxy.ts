/**
 * A TCP proxy of our own in front of a real redis-server, for the broken-infrastructure cases:
 * - `cut`: every open connection is reset and new ones are refused (a crash, a partition);
 * - `silent`: connections stay open but nothing passes either way (a blackhole);
 * - `slow`: every chunk is delayed by `delayMs` (a congested link);
 * - `open`: traffic passes.
 */
import { createConnection, createServer, type Server, type Socket } from 'net';

export type ProxyMode = 'open' | 'cut' | 'silent' | 'slow';

export interface TcpProxy {
	port: number;
	setMode(mode: ProxyMode, delayMs?: number): void;
	/** connections clients opened (or tried to open) through the proxy so far */
	connections(): number;
	close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
	let mode: ProxyMode = 'open';
	let delay = 0;
	const sockets = new Set<Socket>();
	const forward = (to: Socket) => (chunk: Buffer) => {
		if (mode === 'silent' || mode === 'cut') return;
		if (mode === 'slow') setTimeout(() => to.destroyed || to.write(chunk), delay);
		else to.write(chunk);
	};
	let connections = 0;
	const server: Server = createServer((client) => {
		connections++;
		if (mode === 'cut') {
			client.resetAndDestroy?.() ?? client.destroy();
			return;
		}
		const upstream = createConnection(targetPort, targetHost);
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('error', () => undefined);
			socket.on('close', () => sockets.delete(socket));
		}
		client.on('data', forward(upstream));
		upstream.on('data', forward(client));
		client.on('close', () => upstream.destroy());
		upstream.on('close', () => client.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as { port: number }).port,
		connections: () => connections,
		setMode(next, delayMs = 0) {
			mode = next;
			delay = delayMs;
			if (next === 'cut') for (const socket of sockets) socket.destroy();
		},
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
