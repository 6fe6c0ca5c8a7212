/**
 * Where Send's CPU per SMS goes beyond the floor's (bench/run.ts's floor rows): Send and the floor at
 * Business pace, in alternating rounds in this one process, the emulator in a child process.
 * Prints CPU ms per SMS for each side, the CPU per thread (main, and V8's workers: concurrent GC and
 * compilation), and one of these, per SMS, side by side:
 * - default: the CPU profile's self time by package/file and by function (with (garbage collector));
 * - HEAP=1: bytes allocated, by package and by function (sampling heap profiler, collected objects included);
 * - COUNT=1: async resources created (promises, timers, sockets); COUNT_STACK=1 says where;
 * - NO_PROFILE=1: CPU figures alone (no profiler running);
 * - AGAINST=floorLimited: the other side is the floor through one Bottleneck job per request.
 * PROFILE_INTERVAL_US (default 200) sets the sampling interval; PROFILE_OUT=dir keeps the .cpuprofile
 * files; MARK=1 prints a line at the end of each round (to split --trace-gc output by side);
 * HEAPSNAP=1 writes a heap snapshot 1.5 s into each side's second round.
 *
 *   node --expose-gc -r ts-node/register/transpile-only bench/profileFloor.ts [items per round] [rounds]
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import { Session } from 'inspector';
import { tmpdir } from 'os';
import { join } from 'path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-bench-'));
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'true';
process.env.N8N_LOG_LEVEL = 'silent';

import { inputItems, MESSAGE, PLANS, seedAccount, startEmulatorProcess } from './lib';
import { BENCH_NODE_NAME, BenchUserBuild } from './userBuilds';

interface Node {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface HeapNode {
	callFrame: { functionName: string; url: string; lineNumber: number };
	selfSize: number;
	children: HeapNode[];
}
interface Profile {
	nodes: Node[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

/** CPU ms per thread name (Linux /proc): the main thread, V8's workers (GC, compiler), libuv's pool. */
function threadCpu(): Map<string, number> {
	const out = new Map<string, number>();
	for (const tid of readdirSync('/proc/self/task')) {
		try {
			const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
			const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
			const key = tid === String(process.pid) ? 'main' : `${name}#${tid}`;
			out.set(key, (out.get(key) ?? 0) + ms);
		} catch {
			// thread gone
		}
	}
	return out;
}

const post = <T>(session: Session, method: string, params?: object) =>
	new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));

function where(url: string, fn: string): string {
	if (!url) return fn.startsWith('(') ? fn : `(native) ${fn}`;
	const nm = url.lastIndexOf('node_modules/');
	if (nm >= 0) {
		const rest = url.slice(nm + 'node_modules/'.length).split('/');
		return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
	}
	if (url.startsWith('node:')) return url;
	const i = url.indexOf('/nodes/');
	if (i >= 0) return url.slice(i + 1);
	const b = url.indexOf('/bench/');
	return b >= 0 ? url.slice(b + 1) : url;
}

/** self time (µs) per key */
function attribute(profile: Profile, key: (n: Node) => string, into: Map<string, number>) {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	for (let i = 0; i < profile.samples.length; i++) {
		const node = byId.get(profile.samples[i])!;
		const k = key(node);
		// timeDeltas[i] is the time before sample i; attribute the next delta to this sample
		const dt = profile.timeDeltas[i + 1] ?? 0;
		into.set(k, (into.get(k) ?? 0) + dt);
	}
}

const resourceCounts: Record<string, number> = {};
if (process.env.COUNT) {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const stacks = !!process.env.COUNT_STACK;
	require('async_hooks').createHook({
		init: (_id: number, type: string) => {
			let key = type;
			if (stacks && (type === 'PROMISE' || type === 'Timeout')) {
				const holder: { stack?: string } = {};
				Error.stackTraceLimit = 12;
				Error.captureStackTrace(holder);
				const frames = holder.stack!.split('\n').slice(1).map((l) => l.trim());
				const frame = frames.find((f) => !f.includes('node:internal') && !f.includes('profileFloor') && !f.includes('node:async_hooks')) ?? frames[0] ?? '';
				const m = /at (?:async )?(\S+)? ?\(?(.*?):(\d+):\d+\)?$/.exec(frame);
				const file = (m?.[2] ?? frame).replace(/.*node_modules\//, '').replace(/.*\/wt-cpu\//, '');
				key = `${type} ${file}:${m?.[3]} ${m?.[1] ?? ''}`;
			}
			resourceCounts[key] = (resourceCounts[key] ?? 0) + 1;
		},
	}).enable();
}
const AGAINST = process.env.AGAINST === 'floorLimited' ? 'floorLimited' : 'floor';

async function main() {
	const perRound = Number(process.argv[2] ?? 250);
	const rounds = Number(process.argv[3] ?? 4);
	const emulator = await startEmulatorProcess();
	const url = emulator.url;
	const keys = { send: `svc_test_prof_send_${Date.now()}`, floor: `svc_test_prof_floor_${Date.now()}` };
	await seedAccount(url, [
		{ key: keys.send, plan: 'business' },
		{ key: keys.floor, plan: 'business' },
	]);
	const { executeNode, registerNodeType, shutdownN8nCore } = await import('../test/helpers/n8n');
	registerNodeType(BENCH_NODE_NAME, new BenchUserBuild());
	const plan = PLANS.business;
	const runOne = async (which: 'send' | 'floor', items: number, offset: number) => {
		const input = inputItems(items, offset);
		if (which === 'floor') {
			return await executeNode(
				{
					type: `n8n-nodes-svc-messaging.${BENCH_NODE_NAME}`,
					parameters: { build: AGAINST, url, apiKey: keys.floor, rate: plan.rate, perCall: plan.perCall, message: MESSAGE },
					credentials: {},
				},
				input,
			);
		}
		const senderId = { __rl: true, mode: 'list', value: '' };
		return await executeNode(
			{
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: MESSAGE, senderId, options: { reference: `prof-${offset}` } },
				credentials: { svcMessagingApi: { baseUrl: url, apiKey: keys.send, plan: 'business' } },
			},
			input,
		);
	};
	// Warm-up (as bench/run.ts): both sides once.
	await runOne('send', 100, 90_000_000);
	await runOne('floor', 100, 91_000_000);

	const session = new Session();
	session.connect();
	await post(session, 'Profiler.enable');
	await post(session, 'Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 200) });
	const totals = { send: { cpu: 0, items: 0, self: new Map<string, number>(), fn: new Map<string, number>(), threads: new Map<string, number>(), heapFn: new Map<string, number>(), heapPkg: new Map<string, number>(), sampled: 0 }, floor: { cpu: 0, items: 0, self: new Map<string, number>(), fn: new Map<string, number>(), threads: new Map<string, number>(), heapFn: new Map<string, number>(), heapPkg: new Map<string, number>(), sampled: 0 } };
	const profiles: Record<'send' | 'floor', Profile[]> = { send: [], floor: [] };
	const heapMode = !!process.env.HEAP;
	const noProfile = !!process.env.NO_PROFILE || heapMode;
	if (heapMode) await post(session, 'HeapProfiler.enable');
	for (let r = 0; r < rounds; r++) {
		for (const which of ['send', 'floor'] as const) {
			global.gc?.();
			if (heapMode) await post(session, 'HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
			else if (!noProfile) await post(session, 'Profiler.start');
			for (const k of Object.keys(resourceCounts)) delete resourceCounts[k];
			const threads0 = threadCpu();
			const cpu = process.cpuUsage();
			if (process.env.HEAPSNAP && r === 1) setTimeout(() => (global.gc?.(), console.log('snapshot', require('v8').writeHeapSnapshot(`/tmp/snap-${which}.heapsnapshot`))), 1500);
			const output = (await runOne(which, perRound, 92_000_000 + r * 10_000 + (which === 'floor' ? 5_000 : 0))) as Array<Array<{ json: { accepted?: boolean } }>>;
			const used = process.cpuUsage(cpu);
			const threads1 = threadCpu();
			const t = totals[which];
			for (const [k, v] of threads1) t.threads.set(k, (t.threads.get(k) ?? 0) + v - (threads0.get(k) ?? 0));
			t.cpu += (used.user + used.system) / 1000;
			t.items += perRound;
			if (heapMode) {
				const { profile } = await post<{ profile: { head: HeapNode } }>(session, 'HeapProfiler.stopSampling');
				const walk = (n: HeapNode, parent = '') => {
					const k = !n.callFrame.url && parent ? `${n.callFrame.functionName} <- ${parent}` : `${where(n.callFrame.url, '')}/${n.callFrame.url.split('/').pop()} ${n.callFrame.functionName || '(anon)'}:${n.callFrame.lineNumber + 1}`;
					t.heapFn.set(k, (t.heapFn.get(k) ?? 0) + n.selfSize);
					const p = where(n.callFrame.url, n.callFrame.functionName);
					t.heapPkg.set(p, (t.heapPkg.get(p) ?? 0) + n.selfSize);
					const self = `${n.callFrame.url.split('/').pop()} ${n.callFrame.functionName}:${n.callFrame.lineNumber + 1}`;
					n.children.forEach((c) => walk(c, self));
				};
				walk(profile.head);
			} else if (!noProfile) {
				const { profile } = await post<{ profile: Profile }>(session, 'Profiler.stop');
				profiles[which].push(profile);
				attribute(profile, (n) => where(n.callFrame.url, n.callFrame.functionName), t.self);
				attribute(profile, (n) => `${where(n.callFrame.url, '')}/${n.callFrame.url.split('/').pop()} ${n.callFrame.functionName || '(anon)'}:${n.callFrame.lineNumber + 1}`, t.fn);
			}
			if (process.env.COUNT) {
				console.log(`--- ${which}`);
				for (const [k, v] of Object.entries(resourceCounts).sort((a, b) => b[1] - a[1])) if (v / perRound >= 0.5) console.log(`  ${(v / perRound).toFixed(1).padStart(6)} ${k}`);
			}
			const accepted = output[0].filter((o) => o.json.accepted === true).length;
			if (process.env.MARK) console.log(`=== end ${which}`);
			process.stderr.write(`round ${r} ${which}: ${((used.user + used.system) / 1000 / perRound).toFixed(3)} ms CPU/SMS, ${accepted}/${perRound} accepted\n`);
		}
	}
	const s = totals.send.cpu / totals.send.items;
	const f = totals.floor.cpu / totals.floor.items;
	console.log(`CPU per SMS: send ${s.toFixed(3)} ms, floor ${f.toFixed(3)} ms, ratio ${(s / f).toFixed(2)}`);
	for (const k of new Set([...totals.send.threads.keys(), ...totals.floor.threads.keys()])) {
		const a = (totals.send.threads.get(k) ?? 0) / totals.send.items;
		const b = (totals.floor.threads.get(k) ?? 0) / totals.floor.items;
		if (a || b) console.log(`  thread ${k.padEnd(20)} send ${a.toFixed(3)} floor ${b.toFixed(3)} ms/SMS`);
	}
	if (heapMode) {
		for (const [label, field] of [['package', 'heapPkg'], ['function', 'heapFn']] as const) {
			const ks = new Set([...totals.send[field].keys(), ...totals.floor[field].keys()]);
			const rows = [...ks].map((k) => ({ k, send: (totals.send[field].get(k) ?? 0) / totals.send.items, floor: (totals.floor[field].get(k) ?? 0) / totals.floor.items }));
			rows.sort((a, b) => b.send - b.floor - (a.send - a.floor));
			const sum = (side: 'send' | 'floor') => rows.reduce((x, r) => x + r[side], 0);
			console.log(`\nallocated bytes per SMS by ${label}: send ${sum('send').toFixed(0)}, floor ${sum('floor').toFixed(0)}`);
			for (const r of rows.slice(0, Number(process.env.TOP ?? 40))) console.log(r.k.slice(0, 100).padEnd(100), r.send.toFixed(0), r.floor.toFixed(0), (r.send - r.floor).toFixed(0));
		}
	}
	if (!noProfile) {
		const keysAll = new Set([...totals.send.self.keys(), ...totals.floor.self.keys()]);
		const rows = [...keysAll].map((k) => ({ k, send: (totals.send.self.get(k) ?? 0) / 1000 / totals.send.items, floor: (totals.floor.self.get(k) ?? 0) / 1000 / totals.floor.items }));
		rows.sort((a, b) => b.send - b.floor - (a.send - a.floor));
		const sum = (side: 'send' | 'floor') => rows.reduce((x, r) => x + r[side], 0);
		console.log(`profile self time per SMS (ms): send total ${sum('send').toFixed(3)}, floor total ${sum('floor').toFixed(3)}`);
		console.log('where'.padEnd(60), 'send', 'floor', 'diff');
		for (const r of rows.filter((r) => Math.abs(r.send - r.floor) > 0.005 || r.send > 0.05)) console.log(r.k.padEnd(60), r.send.toFixed(3), r.floor.toFixed(3), (r.send - r.floor).toFixed(3));
		const fkeys = new Set([...totals.send.fn.keys(), ...totals.floor.fn.keys()]);
		const frows = [...fkeys].map((k) => ({ k, send: (totals.send.fn.get(k) ?? 0) / 1000 / totals.send.items, floor: (totals.floor.fn.get(k) ?? 0) / 1000 / totals.floor.items }));
		frows.sort((a, b) => b.send - b.floor - (a.send - a.floor));
		console.log('\nfunctions, largest send − floor (ms/SMS):');
		for (const r of frows.slice(0, Number(process.env.TOP ?? 40))) console.log(r.k.slice(0, 100).padEnd(100), r.send.toFixed(4), r.floor.toFixed(4), (r.send - r.floor).toFixed(4));
		if (process.env.PROFILE_OUT) {
			for (const which of ['send', 'floor'] as const) profiles[which].forEach((p, i) => writeFileSync(join(process.env.PROFILE_OUT!, `${which}-${i}.cpuprofile`), JSON.stringify(p)));
		}
	}
	session.disconnect();
	await shutdownN8nCore();
	await emulator.stop();
	process.exit(0);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
