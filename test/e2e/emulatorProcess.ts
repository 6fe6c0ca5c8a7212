/**
 * Entry point of the emulator child process started by the e2e harness:
 *   ts-node --transpile-only test/e2e/emulatorProcess.ts <port> <timeScale>
 * Prints one JSON line `{ "url": … }` when listening; stops on SIGTERM/SIGINT or when stdin closes.
 */
import { startEmulator } from '../emulator';

async function main() {
	const port = Number(process.argv[2] ?? 0);
	const timeScale = Number(process.argv[3] ?? 1);
	const emulator = await startEmulator({ port, timeScale });
	process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);
	const stop = () => {
		void emulator.close().finally(() => process.exit(0));
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
	process.exit(1);
});
