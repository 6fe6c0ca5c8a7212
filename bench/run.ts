/**
 * `npm run bench`: throughput of the SVC Messaging node at each plan's limit, against one request
 * per item and n8n's HTTP Request batching, on the local emulator. Prints a table and writes
 * bench/results.json. See README → Performance.
 *
 * The emulator runs as a child process and the node in another (bench/worker.ts), so the CPU time
 * measured around the node's execution is the node's (with n8n-core's request helpers) alone.
 */
import { fork, type ChildProcess } from 'child_process';
import { writeFileSync } from 'fs';
import { cpus, totalmem } from 'os';
import { join } from 'path';

import { callTime, closeBaselines, httpBatching, perItem, type BaselineRun } from './baselines';
import {
	clearRequestLog,
	logFigures,
	messages,
	PLANS,
	requestLog,
	round,
	seedAccount,
	startEmulatorProcess,
	ROOT,
	type Plan,
} from './lib';
import type { NodeScenario, WorkerResult } from './worker';

/**
 * Item counts. A run at a fixed rate takes items / rate seconds: the slow baselines get fewer items
 * (their figures are ratios and per-10,000 figures). BENCH_QUICK=1 shrinks everything (a smoke run).
 */
const SIZES = process.env.BENCH_QUICK
	? {
			bulk: 1_000,
			send: 50,
			sharedPerExecution: 20,
			perItem: 200,
			batching: { free: 20, starter: 40, business: 200 } as Record<Plan, number>,
			memory: 20_000,
		}
	: {
			bulk: 10_000,
			send: 1_000,
			sharedPerExecution: 60,
			perItem: 1_000,
			batching: { free: 200, starter: 400, business: 1_000 } as Record<Plan, number>,
			memory: 100_000,
		};

interface Row {
	id: string;
	label: string;
	kind: 'node' | 'baseline';
	plan: Plan;
	items: number;
	recipients: number;
	calls: number;
	expectedCalls: number | null;
	rateLimited: number;
	otherErrors: number;
	accepted: number;
	achievedRate: number | null;
	rateRatio: number | null;
	wallS: number;
	minimumS: number;
	wallRatio: number;
	cpuMsPer10k: number;
	rssGrowthMb: number | null;
	heapGrowthMb: number | null;
	callsPer10kAccepted: number | null;
	wallSPer10kAccepted: number | null;
	notes?: string;
	extra?: Record<string, unknown>;
}

let keySerial = 0;
const keyFor = (id: string) => `svc_test_bench_${id.replace(/[^a-z0-9]/gi, '_')}_${String(1000 + ++keySerial)}`;

class Worker {
	private child: ChildProcess;
	private ready: Promise<void>;

	constructor() {
		this.child = fork(join(__dirname, 'worker.ts'), [], {
			cwd: ROOT,
			execArgv: ['--expose-gc', '-r', 'ts-node/register/transpile-only'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		this.ready = new Promise((resolve, reject) => {
			this.child.once('message', () => resolve());
			this.child.once('exit', (code) => reject(new Error(`bench worker exited (${code})`)));
		});
	}

	async run(scenario: NodeScenario, url: string): Promise<WorkerResult> {
		await this.ready;
		return await new Promise((resolve, reject) => {
			this.child.once('message', (message: { type: string; result?: WorkerResult; message?: string }) => {
				if (message.type === 'result') resolve(message.result!);
				else reject(new Error(message.message));
			});
			this.child.send({ type: 'run', scenario, url });
		});
	}

	async stop() {
		if (this.child.exitCode !== null) return;
		const exited = new Promise((resolve) => this.child.once('exit', resolve));
		this.child.send({ type: 'exit' });
		await exited;
	}
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
	const startedAt = new Date();
	const t0 = performance.now();
	log('bench: starting the emulator (child process)');
	const emulator = await startEmulatorProcess();
	const url = emulator.url;
	const rows: Row[] = [];
	let worker: Worker | undefined;
	let memoryWorker: Worker | undefined;
	let shared: Record<string, unknown> = {};
	try {
		// Keys: one per scenario, so each starts with a full rate budget.
		const scenarios: Array<NodeScenario & { label: string }> = [
			{ id: 'bulk-free', label: 'Send Bulk', operation: 'sendBulk', plan: 'free', items: SIZES.bulk, key: '' },
			{ id: 'bulk-starter', label: 'Send Bulk', operation: 'sendBulk', plan: 'starter', items: SIZES.bulk, key: '' },
			{ id: 'bulk-business', label: 'Send Bulk', operation: 'sendBulk', plan: 'business', items: SIZES.bulk, key: '' },
			{ id: 'bulk-business-vars', label: 'Send Bulk, {{placeholders}} from item fields', operation: 'sendBulk', plan: 'business', items: SIZES.bulk, variables: true, key: '' },
			{ id: 'send-free', label: 'Send (1 request/item, limiter)', operation: 'send', plan: 'free', items: SIZES.send, key: '' },
			{ id: 'send-starter', label: 'Send (1 request/item, limiter)', operation: 'send', plan: 'starter', items: SIZES.send, key: '' },
		];
		for (const s of scenarios) s.key = keyFor(s.id);
		const warmups: NodeScenario[] = [
			{ id: 'warmup-bulk', operation: 'sendBulk', plan: 'business', items: 2_000, key: keyFor('warmup-bulk') },
			{ id: 'warmup-send', operation: 'send', plan: 'business', items: 100, key: keyFor('warmup-send') },
		];
		const sharedScenario: NodeScenario = {
			id: 'shared-free',
			operation: 'send',
			plan: 'free',
			items: SIZES.sharedPerExecution,
			executions: 2,
			key: keyFor('shared-free'),
		};
		const memoryScenario: NodeScenario & { label: string } = {
			id: 'memory-business',
			label: 'Send Bulk, {{placeholders}} (memory)',
			operation: 'sendBulk',
			plan: 'business',
			items: SIZES.memory,
			variables: true,
			key: keyFor('memory-business'),
		};
		const baselineKeys = {
			perItem: Object.fromEntries((Object.keys(PLANS) as Plan[]).map((p) => [p, keyFor(`per-item-${p}`)])) as Record<Plan, string>,
			batching: Object.fromEntries((Object.keys(PLANS) as Plan[]).map((p) => [p, keyFor(`batching-${p}`)])) as Record<Plan, string>,
		};
		const calibrationKey = keyFor('calibration');
		await seedAccount(url, [
			...[...scenarios, ...warmups, memoryScenario].map((s) => ({ key: s.key, plan: s.plan })),
			...(Object.keys(PLANS) as Plan[]).flatMap((p) => [
				{ key: baselineKeys.perItem[p], plan: p },
				{ key: baselineKeys.batching[p], plan: p },
			]),
			{ key: calibrationKey, plan: 'business' as Plan },
		]);
		const sharedAccount = await seedAccount(url, [{ key: sharedScenario.key, plan: sharedScenario.plan }]);

		// The fastest answer to one call of each size: part of every scenario's theoretical minimum.
		const callMs: Record<number, number> = {};
		let offset = 5_000_000;
		for (const size of [1, 100, 1000, 10000]) {
			callMs[size] = await callTime(url, calibrationKey, size, offset);
			offset += 3 * size;
		}
		log(`bench: one call answered in ${Object.entries(callMs).map(([n, ms]) => `${n} recipient(s) ${ms.toFixed(1)} ms`).join(', ')}`);

		worker = new Worker();
		for (const w of warmups) await worker.run(w, url);

		const nodeRow = async (s: NodeScenario & { label: string }, w: Worker): Promise<Row> => {
			await clearRequestLog(url);
			log(`bench: ${s.id} (${s.label}, ${s.plan}, ${s.items} items)`);
			const result = await w.run(s, url);
			const plan = PLANS[s.plan];
			const figures = logFigures(await requestLog(url, s.key), plan.rate);
			const bulk = s.operation === 'sendBulk';
			const expectedCalls = bulk ? Math.ceil(s.items / plan.perCall) : s.items;
			const largest = bulk ? Math.min(s.items, plan.perCall) : 1;
			const minimumMs = ((expectedCalls - 1) / plan.rate) * 1000 + callMs[nearestSize(largest)] * (largest / nearestSize(largest));
			const accepted = result.executions.reduce((sum, e) => sum + e.accepted, 0);
			const errors = result.executions.filter((e) => e.error).map((e) => e.error);
			return {
				id: s.id,
				label: s.label,
				kind: 'node',
				plan: s.plan,
				items: s.items,
				recipients: s.items,
				calls: figures.calls,
				expectedCalls,
				rateLimited: figures.rateLimited,
				otherErrors: figures.otherErrors,
				accepted,
				achievedRate: round(figures.achievedRate),
				rateRatio: round(figures.rateRatio, 3),
				wallS: round(result.wallMs / 1000, 3)!,
				minimumS: round(minimumMs / 1000, 3)!,
				wallRatio: round(result.wallMs / minimumMs, 3)!,
				cpuMsPer10k: round((result.cpuMs / s.items) * 10_000, 1)!,
				rssGrowthMb: round(result.rssPeakGrowthMb, 1),
				heapGrowthMb: round(result.heapPeakGrowthMb, 1),
				callsPer10kAccepted: accepted ? round((figures.calls / accepted) * 10_000, 1) : null,
				wallSPer10kAccepted: accepted ? round((result.wallMs / 1000 / accepted) * 10_000, 1) : null,
				notes: errors.length ? `errors: ${errors.join('; ')}` : undefined,
				extra: { cpuMs: round(result.cpuMs, 1), rssBeforeMb: round(result.rssBeforeMb, 1) },
			};
		};

		for (const s of scenarios) rows.push(await nodeRow(s, worker));

		// Two executions at once on the same key: together within the plan, an equal share each.
		{
			await clearRequestLog(url);
			log(`bench: ${sharedScenario.id} (2 × Send ${sharedScenario.items} items at once, one Free key)`);
			const result = await worker.run(sharedScenario, url);
			const plan = PLANS[sharedScenario.plan];
			const figures = logFigures(await requestLog(url, sharedScenario.key), plan.rate);
			const created = (await messages(url, sharedAccount)).map((m) => ({ ref: m.reference, at: Date.parse(m.createdAt) }));
			const refs = result.executions.map((e) => e.reference);
			const ends = refs.map((r) => Math.max(...created.filter((m) => m.ref === r).map((m) => m.at)));
			const starts = refs.map((r) => Math.min(...created.filter((m) => m.ref === r).map((m) => m.at)));
			const overlapStart = Math.max(...starts);
			const overlapEnd = Math.min(...ends);
			const inOverlap = refs.map((r) => created.filter((m) => m.ref === r && m.at >= overlapStart && m.at <= overlapEnd).length);
			const total = inOverlap.reduce((a, b) => a + b, 0);
			const shares = inOverlap.map((n) => round(n / total, 3));
			const calls = sharedScenario.items * 2;
			const minimumMs = ((calls - 1) / plan.rate) * 1000 + callMs[1];
			shared = {
				executions: result.executions.map((e, i) => ({
					...e,
					wallMs: round(e.wallMs, 0),
					shareWhileBothRan: shares[i],
					rateWhileBothRan: round((inOverlap[i] * 1000) / Math.max(1, overlapEnd - overlapStart), 2),
				})),
				overlapS: round((overlapEnd - overlapStart) / 1000, 2),
				finishGapS: round(Math.abs(ends[0] - ends[1]) / 1000, 2),
			};
			rows.push({
				id: sharedScenario.id,
				label: '2 × Send at once, same key (shared limiter)',
				kind: 'node',
				plan: sharedScenario.plan,
				items: calls,
				recipients: calls,
				calls: figures.calls,
				expectedCalls: calls,
				rateLimited: figures.rateLimited,
				otherErrors: figures.otherErrors,
				accepted: result.executions.reduce((sum, e) => sum + e.accepted, 0),
				achievedRate: round(figures.achievedRate),
				rateRatio: round(figures.rateRatio, 3),
				wallS: round(result.wallMs / 1000, 3)!,
				minimumS: round(minimumMs / 1000, 3)!,
				wallRatio: round(result.wallMs / minimumMs, 3)!,
				cpuMsPer10k: round((result.cpuMs / calls) * 10_000, 1)!,
				rssGrowthMb: round(result.rssPeakGrowthMb, 1),
				heapGrowthMb: round(result.heapPeakGrowthMb, 1),
				callsPer10kAccepted: null,
				wallSPer10kAccepted: null,
				notes: `share of each execution while both ran: ${shares.join(' / ')}`,
				extra: shared,
			});
		}
		await worker.stop();
		worker = undefined;

		// Baselines in this process (undici): one request per item, and HTTP Request batching.
		const baselineRow = async (id: string, label: string, plan: Plan, items: number, key: string, runIt: () => Promise<BaselineRun>) => {
			await clearRequestLog(url);
			log(`bench: ${id} (${label}, ${plan}, ${items} items)`);
			const result = await runIt();
			const limits = PLANS[plan];
			const figures = logFigures(await requestLog(url, key), limits.rate);
			const minimumMs = ((items - 1) / limits.rate) * 1000 + callMs[1];
			const row: Row = {
				id,
				label,
				kind: 'baseline',
				plan,
				items,
				recipients: items,
				calls: figures.calls,
				expectedCalls: items,
				rateLimited: figures.rateLimited,
				otherErrors: figures.otherErrors,
				accepted: result.accepted,
				achievedRate: round(figures.achievedRate),
				rateRatio: round(figures.rateRatio, 3),
				wallS: round(result.wallMs / 1000, 3)!,
				minimumS: round(minimumMs / 1000, 3)!,
				wallRatio: round(result.wallMs / minimumMs, 3)!,
				cpuMsPer10k: round((result.cpuMs / items) * 10_000, 1)!,
				rssGrowthMb: null,
				heapGrowthMb: null,
				callsPer10kAccepted: result.accepted ? round((figures.calls / result.accepted) * 10_000, 1) : null,
				wallSPer10kAccepted: result.accepted ? round((result.wallMs / 1000 / result.accepted) * 10_000, 1) : null,
				notes: result.rejected ? `${result.rejected} item(s) failed (${JSON.stringify(result.statuses)})` : undefined,
			};
			rows.push(row);
		};
		let baseOffset = 20_000_000;
		for (const plan of Object.keys(PLANS) as Plan[]) {
			const key = baselineKeys.perItem[plan];
			await baselineRow(`per-item-${plan}`, 'Baseline: 1 request/item, sequential, no limiter', plan, SIZES.perItem, key, async () =>
				await perItem(url, key, SIZES.perItem, (baseOffset += SIZES.perItem)),
			);
		}
		for (const plan of Object.keys(PLANS) as Plan[]) {
			const key = baselineKeys.batching[plan];
			const items = SIZES.batching[plan];
			await baselineRow(
				`batching-${plan}`,
				`Baseline: HTTP Request batching (${PLANS[plan].rate} items/batch, 1000 ms)`,
				plan,
				items,
				key,
				async () => await httpBatching(url, key, items, (baseOffset += items), PLANS[plan].rate, 1000),
			);
		}

		// Memory: 100,000 items in a fresh process (its RSS high-water mark is this scenario's).
		memoryWorker = new Worker();
		rows.push(await nodeRow(memoryScenario, memoryWorker));
		await memoryWorker.stop();
		memoryWorker = undefined;
	} finally {
		await worker?.stop();
		await memoryWorker?.stop();
		await closeBaselines();
		await emulator.stop();
	}

	const totalS = (performance.now() - t0) / 1000;
	const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
	const targets = evaluateTargets(byId, shared);
	const results = {
		date: startedAt.toISOString(),
		machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: round(totalmem() / 2 ** 30, 1), node: process.version, platform: process.platform },
		definitions: {
			rateRatio: 'accepted calls per second, from the emulator’s arrival times ((n − 1) / (last − first)), divided by the plan rate',
			minimum: "(calls − 1) / plan rate + the fastest answer to one call of the largest chunk's size (measured in this run with undici)",
			cpuMsPer10k: 'CPU time of the process running the node (user + system, process.cpuUsage around the execution; the emulator is another process) per 10,000 recipients',
			rssGrowthMb: 'peak RSS during the execution (5 ms samples and the kernel high-water mark) minus RSS before it, after a GC',
			per10kAccepted: 'calls and wall time per 10,000 recipients actually accepted (per-item baselines lose most items to 429s)',
		},
		sizes: SIZES,
		totalSeconds: round(totalS, 1),
		scenarios: rows,
		sharedLimiter: shared,
		comparisons: comparisons(byId),
		targets,
	};
	writeFileSync(join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
	process.stdout.write(`${table(rows)}\n\n${comparisonTable(results.comparisons)}\n\n${targetTable(targets)}\n\n`);
	process.stdout.write(`Total ${totalS.toFixed(0)} s. Results: bench/results.json\n`);
}

const nearestSize = (n: number) => (n <= 1 ? 1 : n <= 100 ? 100 : n <= 1000 ? 1000 : 10000);

function comparisons(byId: Record<string, Row>) {
	const bulk = byId['bulk-free'];
	return ['per-item-free', 'batching-free', 'send-free'].map((id) => {
		const other = byId[id];
		return {
			sendBulkFree: 'bulk-free',
			against: id,
			fewerCallsX: other?.callsPer10kAccepted && bulk?.callsPer10kAccepted ? round(other.callsPer10kAccepted / bulk.callsPer10kAccepted, 1) : null,
			lessWallX: other?.wallSPer10kAccepted && bulk?.wallSPer10kAccepted ? round(other.wallSPer10kAccepted / bulk.wallSPer10kAccepted, 1) : null,
		};
	});
}

function evaluateTargets(byId: Record<string, Row>, shared: Record<string, unknown>) {
	const nodeRows = Object.values(byId).filter((r) => r.kind === 'node');
	const rated = nodeRows.filter((r) => r.rateRatio !== null && r.calls >= 5);
	const bulkRows = ['bulk-free', 'bulk-starter', 'bulk-business'].map((id) => byId[id]).filter(Boolean);
	const cmp = comparisons(byId).find((c) => c.against === 'per-item-free');
	const sharedExecutions = (shared.executions as Array<{ shareWhileBothRan: number }> | undefined) ?? [];
	const check = (name: string, pass: boolean, detail: string) => ({ target: name, pass, detail });
	return [
		check(
			'rate ≥ 95 % of plan (node scenarios with ≥ 5 calls)',
			rated.every((r) => r.rateRatio! >= 0.95),
			rated.map((r) => `${r.id} ${((r.rateRatio ?? 0) * 100).toFixed(1)} %`).join(', '),
		),
		check('0 × 429 (node scenarios)', nodeRows.every((r) => r.rateLimited === 0), nodeRows.map((r) => `${r.id} ${r.rateLimited}`).join(', ')),
		check(
			'Send Bulk 10,000: exactly ⌈10,000 / perCall⌉ calls',
			bulkRows.every((r) => r.calls === r.expectedCalls),
			bulkRows.map((r) => `${r.id} ${r.calls}/${r.expectedCalls}`).join(', '),
		),
		check('Send Bulk 10,000: wall ≤ 1.05 × minimum', bulkRows.every((r) => r.wallRatio <= 1.05), bulkRows.map((r) => `${r.id} ${r.wallRatio}`).join(', ')),
		check(
			'vs 1 request/item at Free: ≥ 50× fewer calls, ≥ 20× less wall (per 10,000 accepted)',
			(cmp?.fewerCallsX ?? 0) >= 50 && (cmp?.lessWallX ?? 0) >= 20,
			`${cmp?.fewerCallsX}× fewer calls, ${cmp?.lessWallX}× less wall`,
		),
		check(
			'node CPU ≤ 100 ms per 10,000 recipients (Send Bulk)',
			nodeRows.filter((r) => r.id.startsWith('bulk') || r.id.startsWith('memory')).every((r) => r.cpuMsPer10k <= 100),
			nodeRows.map((r) => `${r.id} ${r.cpuMsPer10k}`).join(', '),
		),
		check('RSS growth ≤ 150 MB for 100,000 items', (byId['memory-business']?.rssGrowthMb ?? Infinity) <= 150, `${byId['memory-business']?.rssGrowthMb} MB`),
		check(
			'shared key: 0 × 429 together, fair share each (40–60 %)',
			byId['shared-free']?.rateLimited === 0 && sharedExecutions.length === 2 && sharedExecutions.every((e) => e.shareWhileBothRan >= 0.4 && e.shareWhileBothRan <= 0.6),
			`429s ${byId['shared-free']?.rateLimited}, shares ${sharedExecutions.map((e) => e.shareWhileBothRan).join(' / ')}`,
		),
	];
}

function pad(cells: string[][]) {
	const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
	return cells.map((row) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

const show = (value: number | null | undefined, suffix = '') => (value === null || value === undefined ? '–' : `${value}${suffix}`);

function table(rows: Row[]) {
	const header = ['scenario', 'what', 'plan', 'items', 'calls', 'expected', '429', 'accepted', 'rate/plan', 'wall s', 'min s', 'wall/min', 'CPU ms/10k', 'RSS +MB'];
	const body = rows.map((r) => [
		r.id,
		r.label,
		r.plan,
		String(r.items),
		String(r.calls),
		show(r.expectedCalls),
		String(r.rateLimited),
		String(r.accepted),
		r.rateRatio === null ? '–' : `${(r.rateRatio * 100).toFixed(1)} %`,
		r.wallS.toFixed(2),
		r.minimumS.toFixed(2),
		r.wallRatio.toFixed(3),
		r.cpuMsPer10k.toFixed(0),
		show(r.rssGrowthMb),
	]);
	return pad([header, ...body]);
}

function comparisonTable(rows: ReturnType<typeof comparisons>) {
	return pad([
		['Send Bulk at Free against', 'per 10,000 accepted recipients', 'fewer calls', 'less wall time'],
		...rows.map((c) => [c.against, '', `${show(c.fewerCallsX)}×`, `${show(c.lessWallX)}×`]),
	]);
}

function targetTable(targets: ReturnType<typeof evaluateTargets>) {
	return pad([['target', 'result', 'figures'], ...targets.map((t) => [t.target, t.pass ? 'met' : 'NOT MET', t.detail])]);
}

main().catch((error) => {
	process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
