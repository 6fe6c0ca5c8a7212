/**
 * `npm run emulator [-- --port N] [--host H] [--time-scale X] [--rate-limit token-bucket|sliding-window|fixed-second]
 * [--second-offset MS]
 * [--latency MS[±JITTER]] [--latency-in MS[±JITTER]] [--latency-out MS[±JITTER]]`: starts the emulator
 * (port from --port, else PORT, else 4010) and prints its URL, the rate-limit mode, the latency, the
 * seeded API keys with their plans, and the logins. --latency sets both ways (e.g. 125±25: a 250 ms
 * round trip, ± 50 ms); --latency-in / --latency-out one way each. --second-offset: fixed-second's
 * seconds begin MS (0–999) past the whole second.
 * Runs until SIGINT or SIGTERM.
 */
import { startEmulator, type RunningEmulator } from './index';
import type { Delay } from './latency';
import { parseRateLimitMode, parseSecondOffset } from './rateLimit';

function flag(args: string[], name: string): string | undefined {
	const i = args.indexOf(name);
	if (i >= 0) return args[i + 1];
	return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function numberFlag(value: string | undefined, name: string, fallback: number): number {
	if (value === undefined || value === '') return fallback;
	const n = Number(value);
	if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number, got '${value}'`);
	return n;
}

const delayText = (delay: Delay) => `${delay.ms}${delay.jitterMs ? `±${delay.jitterMs}` : ''} ms`;

function describe(emulator: RunningEmulator): string {
	const accounts = emulator.control.accounts();
	const lines = [
		`SVC messaging emulator listening on ${emulator.url}`,
		`Rate limit per API key: ${emulator.control.rateLimitMode()}`,
		`Latency: in ${delayText(emulator.control.latency().inbound)}, out ${delayText(emulator.control.latency().outbound)}`,
		'',
		'API keys (header x-api-key):',
	];
	for (const account of accounts) {
		for (const k of account.apiKeys) {
			const plan = `${k.tier[0].toUpperCase()}${k.tier.slice(1)}`;
			lines.push(
				`  ${k.key.padEnd(28)} ${plan.padEnd(10)} ${String(k.requestsPerSecond).padStart(4)} req/s ${String(k.recipientsPerCall).padStart(6)} recipients/call  ${account.id} (${account.credits} credits)`,
			);
		}
	}
	lines.push('', 'Logins (POST /api/auth/login):');
	for (const account of accounts) {
		const password = emulator.state.accounts.get(account.id)?.password ?? '';
		lines.push(`  ${account.email} / ${password}  (${account.id})`);
	}
	lines.push('', `Test control: ${emulator.url}/__emulator/ (reset, accounts, messages, webhooks, faults, clock/advance, ...)`);
	return lines.join('\n');
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const port = numberFlag(flag(args, '--port') ?? process.env.PORT, 'port', 4010);
	const timeScale = numberFlag(flag(args, '--time-scale'), 'time-scale', 1);
	const mode = flag(args, '--rate-limit');
	const rateLimit = mode === undefined ? undefined : parseRateLimitMode(mode);
	const both = flag(args, '--latency');
	const latency = { inbound: flag(args, '--latency-in') ?? both, outbound: flag(args, '--latency-out') ?? both };
	const offset = flag(args, '--second-offset');
	const secondOffsetMs = offset === undefined ? undefined : parseSecondOffset(offset);
	const emulator = await startEmulator({ port, host: flag(args, '--host'), timeScale, rateLimit, secondOffsetMs, latency });
	process.stdout.write(`${describe(emulator)}\n`);
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write(`\n${signal}: stopping the emulator\n`);
		emulator.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
	process.stderr.write(`svc emulator: ${(error as Error).message}\n`);
	process.exit(1);
});
