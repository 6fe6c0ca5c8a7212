/**
 * `npm run bench:credentials`: what reading the credential once per node run saves in a REAL n8n.
 * In n8n every `getCredentials` is a database query, a decryption and the credential's
 * expression resolution; before transport/credentials.ts read it once per node run, an SMS Send
 * read it twice per request (apiRequest, then httpRequestWithAuthentication again).
 *
 * Runs bench/credentialsPhase.ts four times per n8n version, one n8n at a time, each in its own
 * process group (killed on exit):
 *   count, current package   reads per SMS from n8n's query log (DB_LOGGING_ENABLED), probe calibrated
 *   count, package before    the same with the package built from the commit before the change
 *   time, current package    the probe node's ms per read (wall, process CPU); SMS Send per SMS
 *   time, package before     SMS Send per SMS (an A/B of whole packages: later commits differ too)
 * and prints reads per SMS, ms per read and so the CPU saved per SMS and per 10,000 SMS.
 *
 * Options (environment): BENCH_TARGETS=1,2 (n8n 1.123.81 and/or 2.41.1; default 1), BENCH_ROUNDS (3),
 * BENCH_READS (probe reads per round, 1,000), BENCH_SMS (items per SMS Send, 300).
 */
import { execFileSync, spawn } from 'child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';

import { ensureInstalled, ROOT, targetInfo, type Target } from '../test/e2e/harness';
import type { PhaseResult, PhaseSpec } from './credentialsPhase';

const TARGETS = (process.env.BENCH_TARGETS ?? '1').split(',').map((t) => t.trim()) as Target[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const READS = Number(process.env.BENCH_READS ?? 1000);
const SMS = Number(process.env.BENCH_SMS ?? 300);
/** Two sizes for the count: the slope is reads per SMS, the rest reads per execution. */
const COUNT_SIZES = [1, 51];

const say = (line = '') => process.stdout.write(`${line}\n`);
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** The commit before transport/credentials.ts (read once per node run) was added. */
function commitBefore(): string {
	const added = git('log', '--format=%H', '--diff-filter=A', '--', 'nodes/SvcMessaging/transport/credentials.ts').split('\n').pop()!;
	return git('rev-parse', `${added}^`);
}

/** That commit's package, built once into a temporary folder (kept for later runs). */
function buildBefore(commit: string): string {
	const dir = join(tmpdir(), `svc-bench-before-${commit.slice(0, 12)}`);
	if (existsSync(join(dir, 'dist', 'nodes', 'SvcMessaging', 'SvcMessaging.node.js'))) return dir;
	say(`building the package of ${commit.slice(0, 7)} (before the change) in ${dir}`);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	execFileSync('bash', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT });
	symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
	execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
	return dir;
}

const running = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.once(signal, () => {
		for (const pid of running) {
			try {
				process.kill(-pid, 'SIGTERM');
			} catch {}
		}
		process.exit(130);
	});
}

/** One phase in its own process group; its progress goes to our stderr. */
function phase(target: Target, spec: PhaseSpec, packageDir?: string): Promise<PhaseResult> {
	// Copied build (the e2e default): a pack install would also need the registry, and how the
	// package got into n8n does not change what a read costs.
	const env: NodeJS.ProcessEnv = { ...process.env, N8N_E2E_TARGET: target, E2E_INSTALL: 'link' };
	delete env.E2E_PACKAGE_DIR;
	if (packageDir) env.E2E_PACKAGE_DIR = packageDir;
	const args = [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', join(__dirname, 'credentialsPhase.ts'), JSON.stringify(spec)];
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
		running.add(child.pid!);
		let stdout = '';
		child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
		child.on('exit', (code) => {
			running.delete(child.pid!);
			const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
			if (code === 0 && line) resolve(JSON.parse(line.slice(7)) as PhaseResult);
			else reject(new Error(`phase ${spec.mode} ${packageDir ? '(before)' : '(current)'} failed (exit ${code})`));
		});
	});
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Reads per SMS (slope between the two sizes) and per execution (what is left at size 0). */
function readsOf(result: PhaseResult): { perSms: number; perExecution: number } {
	const [a, b] = result.sms;
	const perSms = (b.reads! - a.reads!) / (b.items - a.items);
	return { perSms, perExecution: a.reads! - perSms * a.items };
}

async function bench(target: Target) {
	const info = targetInfo(target);
	ensureInstalled(info);
	const before = buildBefore(commitBefore());
	say(`\nn8n ${info.version} (SQLite, as the e2e bed runs it); load average ${load()}`);
	const countSpec: PhaseSpec = { mode: 'count', probeReads: 20, rounds: 1, sms: COUNT_SIZES };
	const countAfter = await phase(target, countSpec);
	const countBefore = await phase(target, countSpec, before);
	// The query log must show exactly the probe's reads, or the counts below mean nothing.
	for (const r of [...countAfter.probe, ...countBefore.probe]) {
		if (r.logged !== r.reads) throw new Error(`the query log showed ${r.logged} reads for ${r.reads} probe reads`);
	}
	const timeAfter = await phase(target, { mode: 'time', probeReads: READS, rounds: ROUNDS, sms: [SMS] });
	const timeBefore = await phase(target, { mode: 'time', probeReads: 0, rounds: ROUNDS, sms: [SMS] }, before);

	const readsBefore = readsOf(countBefore);
	const readsAfter = readsOf(countAfter);
	// Per SMS in executions of SMS items: the per-execution reads spread over them.
	const perSms = (r: { perSms: number; perExecution: number }) => r.perSms + r.perExecution / SMS;
	const saved = perSms(readsBefore) - perSms(readsAfter);
	const wall = timeAfter.probe.map((p) => p.wallMsPerRead);
	const cpu = timeAfter.probe.map((p) => p.cpuMsPerRead);
	const perSmsOf = (r: PhaseResult, key: 'cpuMs' | 'wallMs') => r.sms.map((s) => s[key] / s.items);

	say(`\n== n8n ${info.version}: credential reads (${new Date().toISOString().slice(0, 10)}, load average ${load()} at the end)`);
	say(`reads, counted in n8n's query log (calibrated: ${countAfter.probe[0].reads} probe reads → ${countAfter.probe[0].logged} logged):`);
	say(`  before (${commitBefore().slice(0, 7)}): ${readsBefore.perSms.toFixed(2)} per SMS + ${readsBefore.perExecution.toFixed(2)} per execution`);
	say(`  now:              ${readsAfter.perSms.toFixed(2)} per SMS + ${readsAfter.perExecution.toFixed(2)} per execution`);
	say(`  → in executions of ${SMS} SMS: ${perSms(readsBefore).toFixed(3)} → ${perSms(readsAfter).toFixed(3)} reads per SMS (${saved.toFixed(3)} fewer)`);
	say(`one read (this.getCredentials in an execute context), ${ROUNDS} × ${READS} reads after 50 warm-up reads:`);
	say(`  wall ${median(wall).toFixed(3)} ms (${range(wall, 3)}), n8n process CPU ${median(cpu).toFixed(3)} ms (${range(cpu, 3)})`);
	say(`saved: CPU ${(saved * median(cpu)).toFixed(2)} ms per SMS (${range(cpu.map((c) => c * saved), 2)}), ${((saved * median(cpu) * 10_000) / 1000).toFixed(1)} s per 10,000 SMS (${range(cpu.map((c) => (c * saved * 10_000) / 1000), 1)});`);
	say(`       wall at most ${(saved * median(wall)).toFixed(2)} ms per SMS, ${((saved * median(wall) * 10_000) / 1000).toFixed(1)} s per 10,000 SMS when not held to the plan's rate`);
	say(`A/B, SMS Send ×${SMS} at Business, ${ROUNDS} runs each (whole packages: later commits changed more than the reads):`);
	for (const [label, r] of [['before', timeBefore], ['now', timeAfter]] as const) {
		say(`  ${label.padEnd(6)} n8n CPU ${range(perSmsOf(r, 'cpuMs'), 2)} ms per SMS, wall ${range(perSmsOf(r, 'wallMs'), 2)} ms per SMS`);
	}
}

async function main() {
	const started = Date.now();
	say(`uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
	for (const target of TARGETS) await bench(target);
	say(`\nuptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
	say(`took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
	process.exit(1);
});
