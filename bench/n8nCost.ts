/**
 * What one message costs in a REAL n8n (2.41.1, regular mode, no Redis), beside n8n's own HTTP
 * Request node doing the same job in the same n8n (bench/n8nFlows.ts):
 * - one-SMS executions one after another (Webhook answering when the last node finished → Edit
 *   Fields, or a Code node as most users build it → send), measured in batches after N earlier sends of the SMS Send node: ms per execution and KB
 *   written to disk per execution by n8n (and, with PostgreSQL, by PostgreSQL's processes);
 * - one execution of many SMS at Business: KB written per SMS, the rate against the plan.
 * Every message is counted at the emulator (each row has an account of its own): sent twice, lost.
 * Disk writes: bench/diskWrites.ts. Shared facts: /work/shared/notes/cost-in-real-n8n.md.
 */
import { loadavg } from 'os';

import { ensureInstalled, EmulatorClient, N8n, targetInfo } from '../test/e2e/harness';
import { startPostgres, type PostgresServer } from '../test/helpers/services';
import { keyFor, log, SIZES, want } from './config';
import { countingWrites } from './diskWrites';
import { PLANS, phone, round, seedAccount } from './lib';
import { activate, firstFailure, flowCredentials, manySmsFlow, oneSmsFlow, type ActiveFlow, type FlowAccount, type TextNode } from './n8nFlows';

export type Database = 'sqlite' | 'postgres';
export const N8N_ROW_IDS = { oneSqlite: 'n8n-one-sqlite', oneCodeSqlite: 'n8n-one-code-sqlite', onePostgres: 'n8n-one-postgres', manySqlite: 'n8n-many-sqlite' } as const;

/** The node between the webhook and the send, as the tables name it. */
export const TEXT_NODE_NAMES: Record<TextNode, string> = { set: 'Edit Fields', code: 'Code' };

export interface BatchFigures {
	executions: number;
	msPerExecution: number;
	medianMs: number;
	p95Ms: number;
	kbPerExecution: number;
	/** PostgreSQL: WAL it generated per execution (pg_current_wal_lsn before and after) */
	walKbPerExecution?: number;
	/** PostgreSQL: the part of kbPerExecution that n8n's own processes wrote */
	n8nKbPerExecution?: number;
	/** PostgreSQL: its checkpoints (timed or requested) while the batch ran */
	checkpoints?: number;
}

export interface OnePoint {
	/** earlier sends of the SMS Send node when the batch started */
	after: number;
	sms: BatchFigures;
	http: BatchFigures;
	timeRatio: number;
	diskRatio: number;
	load: { atStart: number[]; atEnd: number[] };
}

export interface Counted {
	/** executions whose answer was not the sent message */
	errors: number;
	/** numbers with more than one SMS at the emulator */
	twice: number;
	/** numbers sent to with no SMS at the emulator */
	lost: number;
	firstError?: string;
}

export interface OneRow extends Counted {
	id: string;
	database: Database;
	/** the node that makes the message's text (Edit Fields, or Code: n8n's task runner in the flow) */
	textNode: TextNode;
	points: OnePoint[];
	smsSends: number;
	httpSends: number;
	fillConcurrency: number;
	/** how PostgreSQL's writes were counted (its own processes, checkpoints at each end of a batch) */
	diskNote: string;
}

export interface ManyRow extends Counted {
	id: string;
	database: Database;
	items: number;
	accepted: number;
	wallS: number;
	kbPerSms: number;
	/** accepted SMS per second at the emulator ((n − 1) / (last − first creation)) over the plan's rate */
	rateRatio: number | null;
	/** where the time beyond the plan's spacing went: the longest gaps between consecutive SMS (ms, after which SMS) */
	longestGaps: Array<{ afterSms: number; ms: number }>;
	load: { atStart: number[]; atEnd: number[] };
}

export interface N8nFigures {
	version: string;
	one: OneRow[];
	many: ManyRow[];
}

const load = () => loadavg().map((l) => round(l, 2)!);
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
let credentialSerial = 0;

/** A fresh emulator account (Business, credits for every row) and the id of a credential for its key. */
async function account(url: string, id: string): Promise<FlowAccount & { accountId: string }> {
	const apiKey = keyFor(id);
	const accountId = await seedAccount(url, [{ key: apiKey, plan: 'business' }]);
	return { apiKey, accountId, credentialId: `svcBenchCred${String(++credentialSerial).padStart(4, '0')}` };
}

/** Sent twice and lost, counted at the emulator: `numbers` each sent to once by the row. */
async function countAtEmulator(emulator: EmulatorClient, accountId: string, numbers: Set<string>) {
	const messages = (await emulator.messages({ accountId })) as Array<{ phoneNumber: string; createdAt: string }>;
	const perNumber = new Map<string, number>();
	for (const m of messages) perNumber.set(m.phoneNumber, (perNumber.get(m.phoneNumber) ?? 0) + 1);
	return {
		messages,
		twice: [...perNumber.values()].filter((n) => n > 1).length,
		lost: [...numbers].filter((n) => !perNumber.has(n)).length,
	};
}

interface Bed {
	n8n: N8n;
	postgres?: PostgresServer;
	emulator: EmulatorClient;
	/** the processes whose disk writes count: n8n (with its task runner, idle here), PostgreSQL's */
	roots: () => number[];
}

async function withN8n<T>(database: Database, url: string, credentials: ReturnType<typeof flowCredentials>, work: (bed: Bed) => Promise<T>): Promise<T> {
	const postgres = database === 'postgres' ? await startPostgres({ durable: true }) : undefined;
	const env: Record<string, string> = postgres
		? { DB_TYPE: 'postgresdb', DB_POSTGRESDB_HOST: postgres.host, DB_POSTGRESDB_PORT: String(postgres.port), DB_POSTGRESDB_DATABASE: postgres.database, DB_POSTGRESDB_USER: postgres.user, DB_POSTGRESDB_PASSWORD: postgres.password }
		: {};
	let n8n: N8n | undefined;
	try {
		n8n = await N8n.start({ target: '2', credentials, env, log });
		log(`bench: n8n ${n8n.info.version} (${database}) at ${n8n.url}, pid ${n8n.pid}${postgres ? `, PostgreSQL pid ${postgres.pid}` : ''}`);
		const started = n8n;
		return await work({ n8n: started, postgres, emulator: new EmulatorClient(url), roots: () => [started.pid!, ...(postgres ? [postgres.pid] : [])] });
	} finally {
		await n8n?.stop();
		await postgres?.stop();
	}
}

/** One execution of a one-SMS flow: its wall time, or why its answer was not the sent message. */
async function once(flow: ActiveFlow, kind: 'sms' | 'http', number: string, code: number): Promise<{ ms: number; error?: string }> {
	const t0 = performance.now();
	const answer = await flow.post<Record<string, any>>({ phone: number, code });
	const ms = performance.now() - t0;
	const sent = kind === 'sms' ? answer.body?.accepted === true : answer.body?.success === true && !!answer.body?.data?.messageId;
	return answer.status === 200 && sent ? { ms } : { ms, error: `HTTP ${answer.status}: ${answer.text.slice(0, 300)}` };
}

/** `count` executions of a one-SMS flow one after another, their disk writes counted around them. */
async function batch(bed: Bed, flow: ActiveFlow, kind: 'sms' | 'http', numbers: () => string, count: number, counted: Counted) {
	// PostgreSQL as it runs (no checkpoint forced: forced ones at each end of a batch changed its
	// writes per execution by less than the machine's noise); the checkpoints that fell in the
	// batch are counted, and its WAL measured apart.
	const checkpoints = () => (bed.postgres ? Number(bed.postgres.sql('SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter')) : 0);
	const checkpointsBefore = checkpoints();
	const walStart = bed.postgres?.sql('SELECT pg_current_wal_lsn()');
	const times: number[] = [];
	const { bytes, perRoot } = await countingWrites(bed.roots, async () => {
		for (let i = 0; i < count; i++) {
			const { ms, error } = await once(flow, kind, numbers(), 100_000 + i);
			times.push(ms);
			if (error) {
				counted.errors++;
				counted.firstError ??= error;
			}
		}
	});
	const walBytes = walStart === undefined ? undefined : Number(bed.postgres!.sql(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${walStart}')`));
	return { times, bytes, n8nBytes: perRoot[0], walBytes, checkpoints: checkpoints() - checkpointsBefore };
}

function figures(parts: Array<Awaited<ReturnType<typeof batch>>>): BatchFigures {
	const times = parts.flatMap((p) => p.times).sort((a, b) => a - b);
	const bytes = parts.reduce((sum, p) => sum + p.bytes, 0);
	const n8nBytes = parts.reduce((sum, p) => sum + p.n8nBytes, 0);
	const wal = parts.every((p) => p.walBytes !== undefined) ? parts.reduce((sum, p) => sum + p.walBytes!, 0) : undefined;
	return {
		executions: times.length,
		msPerExecution: round(times.reduce((a, b) => a + b, 0) / times.length, 1)!,
		medianMs: round(quantile(times, 0.5), 1)!,
		p95Ms: round(quantile(times, 0.95), 1)!,
		kbPerExecution: round(bytes / 1024 / times.length, 1)!,
		...(wal === undefined
			? {}
			: { walKbPerExecution: round(wal / 1024 / times.length, 1)!, n8nKbPerExecution: round(n8nBytes / 1024 / times.length, 1)!, checkpoints: parts.reduce((sum, p) => sum + p.checkpoints, 0) }),
	};
}

/** Executions of the SMS flow, `concurrency` at a time, until the node has sent `until`. */
async function fill(flow: ActiveFlow, state: { sent: number }, until: number, concurrency: number, next: () => string, counted: Counted) {
	const t0 = Date.now();
	let lastLog = t0;
	const worker = async () => {
		while (state.sent < until) {
			state.sent++;
			const { error } = await once(flow, 'sms', next(), state.sent);
			if (error) {
				counted.errors++;
				counted.firstError ??= error;
			}
			if (Date.now() - lastLog > 30_000) {
				lastLog = Date.now();
				log(`bench:   ${state.sent.toLocaleString('en')} of ${until.toLocaleString('en')} sends, ${((Date.now() - t0) / 1000).toFixed(0)} s, load ${load().join(' ')}`);
			}
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
}

type Account = Awaited<ReturnType<typeof account>>;

const oneId = (database: Database, textNode: TextNode) => (database === 'postgres' ? N8N_ROW_IDS.onePostgres : textNode === 'code' ? N8N_ROW_IDS.oneCodeSqlite : N8N_ROW_IDS.oneSqlite);

/** The one-SMS row's accounts: the SMS Send node's and the HTTP Request node's. */
async function oneAccounts(url: string, database: Database, textNode: TextNode) {
	const id = oneId(database, textNode);
	return { textNode, sms: await account(url, `${id}-sms`), http: await account(url, `${id}-http`) };
}

async function oneRow(bed: Bed, url: string, database: Database, { textNode, sms, http }: Awaited<ReturnType<typeof oneAccounts>>): Promise<OneRow> {
	const id = oneId(database, textNode);
	const { after, batch: size, rounds, fillConcurrency } = SIZES.n8n;
	log(`bench: ${id}: one-SMS executions (${TEXT_NODE_NAMES[textNode]} flow) after ${after.join(', ')} sends, ${size} measured per flow at each point`);
	const smsFlow = await activate(bed.n8n, oneSmsFlow('sms', textNode, `bench-one-sms-${textNode}-${database}`, url, sms.credentialId));
	const httpFlow = await activate(bed.n8n, oneSmsFlow('http', textNode, `bench-one-http-${textNode}-${database}`, url, http.credentialId));
	const counted: Counted = { errors: 0, twice: 0, lost: 0 };
	const smsNumbers = new Set<string>();
	const httpNumbers = new Set<string>();
	const nextSms = () => ((n) => (smsNumbers.add(n), n))(phone(smsNumbers.size));
	const nextHttp = () => ((n) => (httpNumbers.add(n), n))(phone(httpNumbers.size));
	const state = { sent: 0 };
	// n8n's first executions of a workflow load its nodes (and a Code node's task runner): not part of any batch.
	for (let i = 0; i < 10; i++) await once(httpFlow, 'http', nextHttp(), i);
	const points: OnePoint[] = [];
	for (const point of after) {
		if (state.sent < point) await fill(smsFlow, state, point, fillConcurrency, nextSms, counted);
		const atStart = load();
		const parts = { sms: [] as Array<Awaited<ReturnType<typeof batch>>>, http: [] as Array<Awaited<ReturnType<typeof batch>>> };
		for (let r = 0; r < rounds; r++) {
			const count = Math.round(size / rounds);
			parts.sms.push(await batch(bed, smsFlow, 'sms', nextSms, count, counted));
			state.sent += count;
			parts.http.push(await batch(bed, httpFlow, 'http', nextHttp, count, counted));
			const [s, h] = [figures([parts.sms[r]]), figures([parts.http[r]])];
			log(`bench:     round ${r + 1} of ${rounds}: SMS Send ${s.msPerExecution} ms, ${s.kbPerExecution} KB; HTTP Request ${h.msPerExecution} ms, ${h.kbPerExecution} KB: ${round(s.msPerExecution / h.msPerExecution, 2)} × time, ${round(s.kbPerExecution / h.kbPerExecution, 2)} × disk`);
		}
		const smsFigures = figures(parts.sms);
		const httpFigures = figures(parts.http);
		points.push({
			after: point,
			sms: smsFigures,
			http: httpFigures,
			timeRatio: round(smsFigures.msPerExecution / httpFigures.msPerExecution, 2)!,
			diskRatio: round(smsFigures.kbPerExecution / httpFigures.kbPerExecution, 2)!,
			load: { atStart, atEnd: load() },
		});
		const p = points[points.length - 1];
		const kb = (f: BatchFigures) => `${f.kbPerExecution} KB${f.walKbPerExecution === undefined ? '' : ` (n8n ${f.n8nKbPerExecution}, WAL ${f.walKbPerExecution})`}`;
		log(`bench:   ${TEXT_NODE_NAMES[textNode]} flow, after ${point}: SMS Send ${p.sms.msPerExecution} ms, ${kb(p.sms)}; HTTP Request ${p.http.msPerExecution} ms, ${kb(p.http)} per execution (load ${atStart.join(' ')})`);
	}
	for (const [numbers, accountId] of [[smsNumbers, sms.accountId], [httpNumbers, http.accountId]] as const) {
		const { twice, lost } = await countAtEmulator(bed.emulator, accountId, numbers);
		counted.twice += twice;
		counted.lost += lost;
	}
	if (counted.errors) counted.firstError += `; n8n saved: ${(await firstFailure(bed.n8n, smsFlow.workflowId)) ?? 'no failed execution of the SMS flow (the failure was elsewhere)'}`;
	return {
		id,
		database,
		textNode,
		points,
		smsSends: smsNumbers.size,
		httpSends: httpNumbers.size,
		fillConcurrency,
		diskNote:
			database === 'postgres'
				? "n8n's processes and PostgreSQL's (postmaster and every child; its defaults: fsync on, a checkpoint every 5 minutes, counted per batch in results.json)"
				: "n8n's processes (with its task runner); SQLite in WAL mode in n8n's user folder",
		...counted,
	};
}

/** The `count` longest gaps between consecutive creation times (sorted), longest first. */
function longestGaps(times: number[], count: number): ManyRow['longestGaps'] {
	const gaps = times.slice(1).map((t, i) => ({ afterSms: i + 1, ms: t - times[i] }));
	return gaps.sort((a, b) => b.ms - a.ms).slice(0, count);
}

async function manyRows(bed: Bed, accounts: Account[]): Promise<ManyRow[]> {
	const sizes = SIZES.n8n.many;
	const rows: ManyRow[] = [];
	for (const [n, items] of sizes.entries()) {
		const flow = await activate(bed.n8n, manySmsFlow(`bench-many-${items}`, accounts[n].credentialId));
		const numbers = Array.from({ length: items }, (_, i) => phone(i));
		log(`bench: ${N8N_ROW_IDS.manySqlite}: one execution of ${items.toLocaleString('en')} SMS at Business`);
		const atStart = load();
		const t0 = performance.now();
		const timeoutMs = (items / PLANS.business.rate) * 3_000 + 120_000;
		const { result: answer, bytes } = await countingWrites(bed.roots, async () => await flow.post<Array<{ accepted?: boolean }>>({ items: numbers.map((phoneNumber) => ({ phone: phoneNumber, text: 'Your order has shipped' })) }, timeoutMs));
		const wallS = (performance.now() - t0) / 1000;
		const accepted = Array.isArray(answer.body) ? answer.body.filter((o) => o.accepted === true).length : 0;
		const { messages, twice, lost } = await countAtEmulator(bed.emulator, accounts[n].accountId, new Set(numbers));
		const times = messages.map((m) => Date.parse(m.createdAt)).sort((a, b) => a - b);
		const span = times.length > 1 ? times[times.length - 1] - times[0] : 0;
		const errors = answer.status === 200 ? items - accepted : items;
		rows.push({
			id: N8N_ROW_IDS.manySqlite,
			database: 'sqlite',
			items,
			accepted,
			wallS: round(wallS, 1)!,
			kbPerSms: round(bytes / 1024 / items, 2)!,
			rateRatio: span > 0 ? round(((times.length - 1) * 1000) / span / PLANS.business.rate, 3) : null,
			longestGaps: longestGaps(times, 5),
			load: { atStart, atEnd: load() },
			errors,
			twice,
			lost,
			...(errors ? { firstError: `HTTP ${answer.status}, ${accepted} of ${items} accepted: ${answer.text.slice(0, 300)}; n8n saved: ${(await firstFailure(bed.n8n, flow.workflowId)) ?? 'no failed execution'}` } : {}),
		});
		const r = rows[rows.length - 1];
		const gaps = r.longestGaps.map((g) => `${g.ms} ms after ${g.afterSms}`).join(', ');
		log(`bench:   ${items} SMS: ${r.kbPerSms} KB per SMS, ${r.wallS} s, ${((r.rateRatio ?? 0) * 100).toFixed(1)} % of the plan (longest gaps: ${gaps}), ${twice} twice, ${lost} lost`);
	}
	return rows;
}

/** The rows BENCH_ONLY selects (all in a full run; the PostgreSQL row only when named in a quick one). */
export async function n8nCostRows(url: string): Promise<N8nFigures | undefined> {
	const wanted = {
		oneSqlite: want(N8N_ROW_IDS.oneSqlite),
		oneCodeSqlite: want(N8N_ROW_IDS.oneCodeSqlite),
		onePostgres: want(N8N_ROW_IDS.onePostgres) && (SIZES.n8n.postgres || !!process.env.BENCH_ONLY?.includes(N8N_ROW_IDS.onePostgres)),
		manySqlite: want(N8N_ROW_IDS.manySqlite),
	};
	if (!Object.values(wanted).some(Boolean)) return undefined;
	const info = targetInfo('2');
	ensureInstalled(info, log);
	const figures: N8nFigures = { version: info.version, one: [], many: [] };
	if (wanted.oneSqlite || wanted.oneCodeSqlite || wanted.manySqlite) {
		// One n8n for the SQLite rows, each on workflows and accounts of its own: the Code flow (as users
		// build it) first, then the Edit Fields flow.
		const ones = [...(wanted.oneCodeSqlite ? [await oneAccounts(url, 'sqlite', 'code')] : []), ...(wanted.oneSqlite ? [await oneAccounts(url, 'sqlite', 'set')] : [])];
		const many = wanted.manySqlite ? await Promise.all(SIZES.n8n.many.map((items) => account(url, `${N8N_ROW_IDS.manySqlite}-${items}`))) : [];
		const credentials = flowCredentials(url, [...ones.map((o) => o.sms), ...many], ones.map((o) => o.http));
		await withN8n('sqlite', url, credentials, async (bed) => {
			for (const one of ones) figures.one.push(await oneRow(bed, url, 'sqlite', one));
			if (wanted.manySqlite) figures.many.push(...(await manyRows(bed, many)));
		});
	}
	if (wanted.onePostgres) {
		const one = await oneAccounts(url, 'postgres', 'set');
		await withN8n('postgres', url, flowCredentials(url, [one.sms], [one.http]), async (bed) => void figures.one.push(await oneRow(bed, url, 'postgres', one)));
	}
	return figures;
}
