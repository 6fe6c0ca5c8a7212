/**
 * One phase of `npm run bench:credentials` (bench/credentials.ts): ONE real n8n, started by the
 * e2e harness exactly as the e2e bed starts it (SQLite, emulator, imported credentials), with the
 * package of E2E_PACKAGE_DIR and the test-only probe node of test/e2e/credentialProbe beside it.
 * A separate process per phase because the harness fixes the package folder when it is loaded.
 *
 * `count` phases start n8n with TypeORM's query log on and count the credential reads (SELECTs on
 * credentials_entity for svcMessagingApi) an SMS Send makes; the probe calibrates the count (K
 * probe reads must show as K). `time` phases run with the log off: the probe's cost per read, and
 * SMS Send's wall and n8n process CPU (from /proc/<pid>/stat) per SMS.
 * Prints one line `RESULT <json>` on stdout; progress goes to stderr. Secrets are never printed.
 */
import type { ChildProcess } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { http, readWorkflow, ROOT, startStack, CREDENTIAL_IDS, CREDENTIAL_NAMES, type Stack, type WorkflowJson } from '../test/e2e/harness';

export interface PhaseSpec {
	mode: 'count' | 'time';
	/** probe reads per execution, and how many executions (time mode) */
	probeReads: number;
	rounds: number;
	/** SMS Send sizes (count mode: the slope between two sizes gives reads per SMS) */
	sms: number[];
}

export interface SmsRun {
	items: number;
	accepted: number;
	wallMs: number;
	cpuMs: number;
	/** count mode: svcMessagingApi reads seen in the query log during the execution */
	reads?: number;
}

export interface ProbeRun {
	reads: number;
	wallMsPerRead: number;
	cpuMsPerRead: number;
	/** count mode: reads seen in the query log (must equal warm-up + reads) */
	logged?: number;
}

export interface PhaseResult {
	version: string;
	probe: ProbeRun[];
	sms: SmsRun[];
}

const PROBE_DIR = join(ROOT, 'test', 'e2e', 'credentialProbe');
const PROBE_TYPE = 'n8n-nodes-svc-credential-probe.credentialProbe';
const business = { id: CREDENTIAL_IDS.business, name: CREDENTIAL_NAMES.business };
const say = (line: string) => process.stderr.write(`  ${line}\n`);

/** user + system CPU of a process in ms (utime and stime, fields 14-15 of /proc/<pid>/stat). */
function cpuMsOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15, in clock ticks of 10 ms.
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Counts credential reads in n8n's query log, one whole line at a time (chunks split lines). */
function readCounter(server: ChildProcess) {
	let count = 0;
	let partial = '';
	server.stdout!.on('data', (d: Buffer) => {
		const lines = (partial + d.toString()).split('\n');
		partial = lines.pop() ?? '';
		for (const line of lines) {
			if (line.includes('"credentials_entity"') && line.includes('"svcMessagingApi"') && /\bSELECT\b/.test(line)) count++;
		}
	});
	return () => count;
}

function webhookWorkflow(name: string, node: WorkflowJson['nodes'][number]): WorkflowJson {
	return {
		name,
		nodes: [
			{ name: 'Input', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'probe', parameters: { httpMethod: 'POST', path: 'probe', responseMode: 'lastNode', responseData: 'allEntries', options: {} } },
			{ ...node, position: [220, 0] },
		],
		connections: { Input: { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
	};
}

/** test/e2e/workflows/sms-send.json (the same file before and after the change) at Business. */
function smsWorkflow(): WorkflowJson {
	const workflow = readWorkflow(join(ROOT, 'test', 'e2e', 'workflows', 'sms-send.json'));
	workflow.nodes.find((n) => n.name === 'Send SMS')!.credentials = { svcMessagingApi: business };
	return workflow;
}

const phone = (i: number) => `+2547${String(10_000_000 + i).padStart(8, '0')}`;

async function runPhase(spec: PhaseSpec, stack: Stack, counted?: () => number): Promise<PhaseResult> {
	const { n8n } = stack;
	const server = (n8n as unknown as { server: ChildProcess }).server;
	const settle = () => new Promise((r) => setTimeout(r, counted ? 300 : 0));
	const result: PhaseResult = { version: n8n.info.version, probe: [], sms: [] };

	const warmup = spec.mode === 'count' ? 0 : 50;
	const probeNode = { name: 'Credential Probe', type: PROBE_TYPE, typeVersion: 1, position: [0, 0] as [number, number], credentials: { svcMessagingApi: business }, parameters: { reads: spec.probeReads, warmup } };
	const probe = await n8n.prepareRun(webhookWorkflow('Credential probe', probeNode));
	const probeRounds = spec.probeReads > 0 ? (spec.mode === 'count' ? 1 : spec.rounds) : 0;
	for (let round = 0; round < probeRounds; round++) {
		const before = counted?.() ?? 0;
		const { body, status } = await post(n8n, probe.workflowId, {});
		await settle();
		const [out] = body as Array<{ reads: number; wallMsPerRead: number; cpuMsPerRead: number }>;
		if (status !== 200 || !out) throw new Error(`probe execution failed (${status}): ${JSON.stringify(body).slice(0, 400)}`);
		const logged = counted ? counted() - before : undefined;
		result.probe.push({ reads: out.reads, wallMsPerRead: out.wallMsPerRead, cpuMsPerRead: out.cpuMsPerRead, logged });
		say(`probe: ${out.reads} reads, ${out.wallMsPerRead.toFixed(3)} ms wall, ${out.cpuMsPerRead.toFixed(3)} ms CPU per read${counted ? `; ${logged} reads in the query log` : ''}`);
	}

	const sms = await n8n.prepareRun(smsWorkflow());
	const sizes = spec.mode === 'count' ? spec.sms : Array.from({ length: spec.rounds }, () => spec.sms).flat();
	let offset = 0;
	for (const size of sizes) {
		const items = Array.from({ length: size }, (_, i) => ({ phone: phone(offset + i), text: 'Your order has shipped' }));
		offset += size;
		const before = counted?.() ?? 0;
		const cpu0 = cpuMsOf(server.pid!);
		const t0 = Date.now();
		const response = await post<Array<{ accepted?: boolean }>>(n8n, sms.workflowId, { items });
		const wallMs = Date.now() - t0;
		const cpuMs = cpuMsOf(server.pid!) - cpu0;
		await settle();
		const accepted = Array.isArray(response.body) ? response.body.filter((o) => o.accepted === true).length : 0;
		if (response.status !== 200 || accepted !== size) throw new Error(`SMS Send of ${size}: HTTP ${response.status}, ${accepted} accepted: ${response.text.slice(0, 400)}`);
		const reads = counted ? counted() - before : undefined;
		result.sms.push({ items: size, accepted, wallMs, cpuMs, reads });
		say(`SMS Send ×${size}: ${accepted} accepted, ${wallMs} ms wall, ${cpuMs} ms n8n CPU${counted ? `, ${reads} credential reads` : ''}`);
	}
	return result;
}

const paths = new Map<string, string>();
/**
 * POSTs to the active workflow's Webhook node (path as prepareRun set it, read back once); with
 * responseMode lastNode the answer comes when the execution has finished, holding its output.
 */
async function post<T = unknown>(n8n: Stack['n8n'], workflowId: string, body: unknown) {
	if (!paths.has(workflowId)) {
		const workflow = await n8n.api<WorkflowJson>('GET', `/workflows/${workflowId}`);
		paths.set(workflowId, workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path as string);
	}
	return await http<T>('POST', `${n8n.url}/webhook/${paths.get(workflowId)}`, body, {}, 300_000);
}

async function main() {
	const spec = JSON.parse(process.argv[2]) as PhaseSpec;
	// The probe package sits in n8n's nodes folder beside ours, as a second community package.
	const userFolder = mkdtempSync(join(tmpdir(), 'svc-bench-cred-'));
	const probeTarget = join(userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-svc-credential-probe');
	mkdirSync(probeTarget, { recursive: true });
	cpSync(PROBE_DIR, probeTarget, { recursive: true });
	let stack: Stack | undefined;
	try {
		const env: Record<string, string> = spec.mode === 'count' ? { DB_LOGGING_ENABLED: 'true', DB_LOGGING_OPTIONS: 'query' } : {};
		stack = await startStack({ timeScale: 0.1, userFolder, env });
		// Credits for every round (the demo account starts with 1,000).
		await stack.emulator.client.patchAccount('acc_demo', { credits: 10_000_000 });
		const server = (stack.n8n as unknown as { server: ChildProcess }).server;
		const result = await runPhase(spec, stack, spec.mode === 'count' ? readCounter(server) : undefined);
		process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
	} finally {
		await stack?.stop();
		rmSync(userFolder, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
		process.exit(1);
	},
);
