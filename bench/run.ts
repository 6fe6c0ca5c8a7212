/**
 * `npm run bench`: throughput of the SVC Messaging node at each plan's limit on the local emulator,
 * which counts the limit in a sliding window (at most N requests in any 1,000 ms); 1, 2 and 4
 * processes sharing a key through Redis; the CPU per SMS against a floor (n8n-core's own request
 * helper in a minimal node); memory; and the same jobs built the way a user would without the
 * package (bench/userBuilds.ts). Prints tables and writes bench/results.json. See docs/performance.md.
 *
 * The emulator runs as a child process and the nodes in others (bench/worker.ts), so the CPU time
 * measured around a node's execution is the node's (with n8n-core's request helpers) alone. This
 * file chooses the rows and prints them; each family of rows has its own file.
 */
import { execFileSync } from 'child_process';
import { writeFileSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';
import { join } from 'path';

import { callTime, closeBaselines } from './baselines';
import { keyFor, log, SIZES, want } from './config';
import { floorRows, type FloorFigures } from './floorRows';
import { round, seedAccount, startEmulatorProcess, ROOT, type Plan } from './lib';
import { memoryKeys, memoryRows } from './memoryRows';
import { n8nCostRows, type N8nFigures } from './n8nCost';
import { failures, n8nTables, n8nTargets } from './n8nCostReport';
import { processesRows } from './processRows';
import { nodeRow, type Bench, type LabelledScenario, type Row } from './rows';
import { sharedRow, type SharedFigures } from './sharedRows';
import { comparisonTable, deadWorkerLine, floorLine, processesTable, table, targetTable } from './tables';
import { comparisons, evaluateTargets } from './targets';
import type { NodeScenario } from './worker';
import { BenchWorker } from './workerProcess';

// Keys: one per scenario, so each starts with a full rate budget.
const scenarios: LabelledScenario[] = [
	{ id: 'bulk-free', label: 'Send Bulk', operation: 'sendBulk', plan: 'free', items: SIZES.bulk, key: keyFor('bulk-free') },
	{ id: 'bulk-starter', label: 'Send Bulk', operation: 'sendBulk', plan: 'starter', items: SIZES.bulk, key: keyFor('bulk-starter') },
	{ id: 'bulk-business', label: 'Send Bulk', operation: 'sendBulk', plan: 'business', items: SIZES.bulk, key: keyFor('bulk-business') },
	{ id: 'bulk-business-vars', label: 'Send Bulk, {{placeholders}} from item fields', operation: 'sendBulk', plan: 'business', items: SIZES.bulk, variables: true, key: keyFor('bulk-business-vars') },
	{ id: 'send-free', label: 'Send (1 request/item, limiter)', operation: 'send', plan: 'free', items: SIZES.send, key: keyFor('send-free') },
	{ id: 'send-starter', label: 'Send (1 request/item, limiter)', operation: 'send', plan: 'starter', items: SIZES.send, key: keyFor('send-starter') },
];
const warmups: NodeScenario[] = [
	{ id: 'warmup-bulk', operation: 'sendBulk', plan: 'business', items: 2_000, key: keyFor('warmup-bulk') },
	{ id: 'warmup-bulk-vars', operation: 'sendBulk', plan: 'business', items: 2_000, variables: true, key: keyFor('warmup-bulk-vars') },
	{ id: 'warmup-send', operation: 'send', plan: 'business', items: 100, key: keyFor('warmup-send') },
	{ id: 'warmup-floor', operation: 'floor', plan: 'business', items: 100, key: keyFor('warmup-floor') },
	{ id: 'warmup-floor-limited', operation: 'floorLimited', plan: 'business', items: 100, key: keyFor('warmup-floor-limited') },
];
// What a user builds without the package, for the same jobs at Free (bench/userBuilds.ts).
const userScenarios: LabelledScenario[] = [
	{ id: 'user-loop-wait-free', label: 'User: Loop Over Items → HTTP Request → Wait 1/rate s', operation: 'loopWait', plan: 'free', items: SIZES.user.perItem, key: keyFor('user-loop-wait-free') },
	{ id: 'user-batching-free', label: 'User: HTTP Request, Batching rate items / 1,000 ms', operation: 'batching', plan: 'free', items: SIZES.user.perItem, key: keyFor('user-batching-free') },
	{ id: 'user-bulk-chunks-free', label: 'User: chunks of 100 → HTTP Request to the bulk endpoint, 1 per 1/rate s', operation: 'bulkChunks', plan: 'free', items: SIZES.user.bulk, key: keyFor('user-bulk-chunks-free') },
];
// CPU per SMS: Send and the floor (n8n-core's helpers.httpRequest alone) at Business pace.
const floorKeys = { send: keyFor('send-business'), floor: keyFor('floor-business'), floorLimited: keyFor('floor-limited-business') };
// Two executions at once on one key, each scenario on an account of its own (its messages stay few).
const sharedScenarios: LabelledScenario[] = [
	{ id: 'shared-free-bulk', label: '2 × Send Bulk at once, same key', operation: 'sendBulk', plan: 'free', items: SIZES.sharedBulk, executions: 2, key: keyFor('shared-free-bulk') },
	{ id: 'shared-free-send', label: '2 × Send at once, same key', operation: 'send', plan: 'free', items: SIZES.sharedSend, executions: 2, key: keyFor('shared-free-send') },
];
const calibrationKey = keyFor('calibration');

/** The fastest answer to one call of each size: part of every row's theoretical minimum. */
async function calibrate(url: string): Promise<Record<number, number>> {
	const callMs: Record<number, number> = {};
	let offset = 5_000_000;
	for (const size of [1, 100, 1000, 10000]) {
		// perCall ≤ 10,000 and 12 calls ≤ the Business budget: no 429 here.
		callMs[size] = await callTime(url, calibrationKey, size, offset);
		offset += 3 * size;
	}
	log(`bench: one call answered in ${Object.entries(callMs).map(([n, ms]) => `${n} recipient(s) ${ms.toFixed(1)} ms`).join(', ')}`);
	return callMs;
}

/** Runs `work` with a fresh worker process, stopped afterwards. */
async function inWorker<T>(work: (worker: BenchWorker) => Promise<T>): Promise<T> {
	const worker = new BenchWorker();
	try {
		return await work(worker);
	} finally {
		await worker.stop();
	}
}

async function runRows(bench: Bench) {
	const business = (key: string) => ({ key, plan: 'business' as Plan });
	await seedAccount(bench.url, [
		...[...scenarios, ...warmups, ...userScenarios].map((s) => ({ key: s.key, plan: s.plan })),
		...memoryKeys(),
		...[floorKeys.send, floorKeys.floor, floorKeys.floorLimited, calibrationKey].map(business),
	]);
	const sharedAccounts: string[] = [];
	for (const s of sharedScenarios) sharedAccounts.push(await seedAccount(bench.url, [{ key: s.key, plan: s.plan }]));
	bench.callMs = await calibrate(bench.url);

	const rows: Row[] = [];
	const shared: Record<string, SharedFigures> = {};
	let floor: FloorFigures = {};
	await inWorker(async (worker) => {
		for (const w of warmups) await worker.run(w, bench.url);
		for (const s of scenarios) if (want(s.id)) rows.push(await nodeRow(bench, s, worker));
		if (want('floor')) {
			const measured = await floorRows(bench, worker, floorKeys);
			rows.push(...measured.rows);
			floor = measured.floor;
		}
		for (const [n, s] of sharedScenarios.entries()) {
			if (!want(s.id)) continue;
			const measured = await sharedRow(bench, s, sharedAccounts[n], worker);
			rows.push(measured.row);
			shared[s.id] = measured.shared;
		}
	});
	const { rows: processRows, deadWorker } = await processesRows(bench.url, bench.callMs[1]);
	// What a user builds without the package, in a worker of its own (n8n-core's request helper).
	if (userScenarios.some((s) => want(s.id))) {
		await inWorker(async (worker) => {
			await worker.run({ ...warmups.find((w) => w.operation === 'floor')!, offset: 35_000_000 }, bench.url);
			for (const s of userScenarios) if (want(s.id)) rows.push(await nodeRow(bench, s, worker));
		});
	}
	rows.push(...(await memoryRows(bench)));
	return { rows, shared, processRows, deadWorker, floor };
}

function sourceState() {
	const git = (...args: string[]) => {
		try {
			return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
		} catch {
			return null;
		}
	};
	const changed = git('status', '--porcelain', '--', 'nodes', 'credentials', 'test', 'bench');
	return { commit: git('rev-parse', 'HEAD'), uncommitted: changed === null ? null : changed.split('\n').filter(Boolean) };
}

const definitions = {
	rateRatio: 'accepted calls per second, from the emulator’s arrival times ((n − 1) / (last − first)), divided by the plan rate',
	minimum: "(calls − 1) / plan rate + the fastest answer to one call of the largest chunk's size (measured in this run with undici)",
	calls: "the row's SMS posts as the emulator logged them, gathered during the row (the emulator keeps only its last 10,000 requests)",
	cpuMsPer10k: 'CPU time of the process running the node (user + system, process.cpuUsage around the execution, less the live-heap sampler’s full GCs; the emulator is another process) per 10,000 recipients',
	cpuMsPerCall: "the same CPU time per HTTP call: every call goes through n8n-core's request helper (credential authentication, axios, a new proxy-aware agent and TCP connection per request), a cost per call whatever its size",
	rssGrowthMb: "peak RSS during the execution (the kernel's high-water mark VmHWM, reset before it) minus RSS before it, after a GC",
	heapGrowthMb: 'V8 heap in use when the execution ended minus before it (output items included)',
	peakHeapGrowthMb: 'the highest V8 heap in use while the execution ran (sampled every 2 ms, so a lower bound) minus before it; Send Bulk memory rows only',
	liveHeapGrowthMb: 'memory rows: the highest heap left after a full GC, taken every few seconds (every second for Send Bulk) while the execution ran, minus the same before it; per item in liveHeapKbPerItem',
	lost: 'input items (recipients) the service did not accept: items − accepted',
	callsPerItem: 'HTTP calls made per input item (recipient), whatever their outcome',
	comparison: 'the same job seen by a user at Free: of the input items, how many were accepted and lost, calls per input item, wall time (rows run on different item counts; wall per 1,000 input items puts them side by side)',
};

async function main() {
	const startedAt = new Date();
	const loadAtStart = loadavg().map((l) => round(l, 2));
	const t0 = performance.now();
	log('bench: starting the emulator (child process)');
	const emulator = await startEmulatorProcess();
	let measured: Awaited<ReturnType<typeof runRows>>;
	let realN8n: N8nFigures | undefined;
	try {
		measured = await runRows({ url: emulator.url, callMs: {} });
		// Real n8n beside its own HTTP Request node (bench/n8nCost.ts), on the same emulator.
		realN8n = await n8nCostRows(emulator.url);
	} finally {
		await closeBaselines();
		await emulator.stop();
	}
	const { rows, shared, processRows, deadWorker, floor } = measured;
	const totalS = (performance.now() - t0) / 1000;
	const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
	const targets = [...evaluateTargets(byId, shared, processRows, floor, deadWorker), ...n8nTargets(realN8n)];
	const loadAtEnd = loadavg().map((l) => round(l, 2));
	const results = {
		date: startedAt.toISOString(),
		machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: round(totalmem() / 2 ** 30, 1), node: process.version, platform: process.platform,
			// 1-, 5- and 15-minute load averages (the machine may be shared with other work).
			loadAverage: { atStart: loadAtStart, atEnd: loadAtEnd },
		},
		definitions,
		// The bench runs the sources in this work tree: the commit, and what differed from it.
		source: sourceState(),
		sizes: SIZES,
		totalSeconds: round(totalS, 1),
		scenarios: rows,
		sharedLimiter: shared,
		processesOnOneKey: processRows,
		deadWorker: deadWorker ?? null,
		comparisons: comparisons(byId),
		floor,
		realN8n: realN8n ?? null,
		targets,
	};
	writeFileSync(join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
	process.stdout.write(
		`${table(rows)}\n\n${processesTable(processRows)}\n\n${deadWorkerLine(deadWorker)}\n\n${floorLine(floor)}\n\n${comparisonTable(results.comparisons)}\n\n${n8nTables(realN8n)}\n\n${targetTable(targets)}\n\n`,
	);
	process.stdout.write(`Total ${totalS.toFixed(0)} s; load average ${loadAtStart.join(' ')} at start, ${loadAtEnd.join(' ')} at end. Results: bench/results.json\n`);
	// A promise broken fails the run (a quick one too); a ratio missed does not.
	const broken = failures(realN8n);
	if (broken.length) {
		process.stderr.write(`bench: real n8n rows failed:\n  ${broken.join('\n  ')}\n`);
		process.exitCode = 1;
	}
}

main().catch((error) => {
	process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
