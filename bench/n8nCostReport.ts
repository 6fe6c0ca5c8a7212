/** The real-n8n cost rows (bench/n8nCost.ts): their tables, their targets, and what fails the run. */
import { TEXT_NODE_NAMES, type BatchFigures, type N8nFigures, type OnePoint, type OneRow } from './n8nCost';
import type { Target } from './targets';

/** The issue's targets for the real-n8n rows. */
export const N8N_TARGETS = { timeRatio: 1.5, diskRatio: 2, growth: 1.25, manyGrowth: 1.25, rate: 0.97 };

function pad(cells: string[][]) {
	const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
	return cells.map((row) => row.map((cell, c) => (c < 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd()).join('\n');
}

const n = (value: number) => value.toLocaleString('en');
/** KB written per execution; with PostgreSQL, n8n's own part of it beside. */
const kb = (f: BatchFigures) => (f.n8nKbPerExecution === undefined ? String(f.kbPerExecution) : `${f.kbPerExecution} (n8n ${f.n8nKbPerExecution})`);
const pct = (ratio: number | null) => (ratio === null ? '–' : `${(ratio * 100).toFixed(1)} %`);

export function n8nTables(figures: N8nFigures | undefined): string {
	if (!figures) return 'Real n8n (one message beside n8n’s own HTTP Request node): not run';
	const parts: string[] = [];
	if (figures.one.length) {
		const rows = figures.one.flatMap((row) =>
			row.points.map((p) => [
				row.database,
				TEXT_NODE_NAMES[row.textNode],
				n(p.after),
				String(p.sms.executions),
				String(p.sms.msPerExecution),
				`${p.sms.medianMs} / ${p.sms.p95Ms}`,
				kb(p.sms),
				p.sms.walKbPerExecution === undefined ? '–' : String(p.sms.walKbPerExecution),
				String(p.http.msPerExecution),
				`${p.http.medianMs} / ${p.http.p95Ms}`,
				kb(p.http),
				p.http.walKbPerExecution === undefined ? '–' : String(p.http.walKbPerExecution),
				`${p.timeRatio} ×`,
				`${p.diskRatio} ×`,
				`${p.load.atStart.join(' ')} → ${p.load.atEnd.join(' ')}`,
			]),
		);
		const counts = figures.one.map(
			(r) => `  ${r.id} (${TEXT_NODE_NAMES[r.textNode]} flow): ${n(r.smsSends)} SMS Send executions (earlier sends made ${r.fillConcurrency} at a time, measured ones one after another), ${n(r.httpSends)} HTTP Request; ${r.errors} errors, ${r.twice} sent twice, ${r.lost} lost (counted at the emulator); disk: ${r.diskNote}${r.firstError ? `; first error: ${r.firstError}` : ''}`,
		);
		parts.push(
			`Real n8n ${figures.version}, regular mode, no Redis, Business: one-SMS executions one after another (Webhook, answer when the last node finished → the text made by a Code node (as users build it) or an Edit Fields node → send), SVC Messaging SMS Send beside n8n's HTTP Request node posting the same SMS in the same flow:\n${pad([
				['database', 'text by', 'after N sends', 'executions', 'SMS Send ms/exec', 'median / p95 ms', 'KB written/exec', 'WAL KB/exec', 'HTTP Request ms/exec', 'median / p95 ms', 'KB written/exec', 'WAL KB/exec', 'time ×', 'disk ×', 'load average (1, 5, 15 min)'],
				...rows,
			])}\n${counts.join('\n')}`,
		);
	}
	if (figures.many.length) {
		parts.push(
			`Real n8n ${figures.version}, SQLite, no Redis: ONE execution of SMS Send with N items at Business (Webhook → Split Out → SMS Send):\n${pad([
				['items', 'accepted', 'wall s', 'KB written per SMS', 'rate / plan', 'errors', 'sent twice', 'lost', 'load average'],
				...figures.many.map((r) => [n(r.items), n(r.accepted), String(r.wallS), String(r.kbPerSms), pct(r.rateRatio), String(r.errors), String(r.twice), String(r.lost), `${r.load.atStart.join(' ')} → ${r.load.atEnd.join(' ')}`]),
			])}${figures.many.filter((r) => r.firstError).map((r) => `\n  ${n(r.items)}: ${r.firstError}`).join('')}`,
		);
	}
	return parts.join('\n\n');
}

const growth = (first: OnePoint, last: OnePoint) => ({ time: last.sms.msPerExecution / first.sms.msPerExecution, disk: last.sms.kbPerExecution / first.sms.kbPerExecution });

export function n8nTargets(figures: N8nFigures | undefined): Target[] {
	const notRun = (target: string): Target => ({ target, pass: null, detail: 'not run' });
	const sqliteRows = figures?.one.filter((r) => r.database === 'sqlite') ?? [];
	const postgres = figures?.one.find((r) => r.database === 'postgres');
	const many = figures?.many ?? [];
	const targets: Target[] = [];
	const points = (row: OneRow) => row.points.map((p) => `after ${n(p.after)}: ${p.sms.msPerExecution} vs ${p.http.msPerExecution} ms (${p.timeRatio} ×), ${p.sms.kbPerExecution} vs ${p.http.kbPerExecution} KB (${p.diskRatio} ×)`).join('; ');
	// Each SQLite flow judged on its own (the Code flow is the one users build).
	for (const sqlite of sqliteRows) {
		const label = `real n8n, SQLite, no Redis, Business, one-SMS executions, ${TEXT_NODE_NAMES[sqlite.textNode]} flow`;
		const first = sqlite.points[0];
		const last = sqlite.points[sqlite.points.length - 1];
		const g = growth(first, last);
		targets.push(
			{ target: `${label}: ≤ ${N8N_TARGETS.timeRatio} × the HTTP Request node's time at every point`, pass: sqlite.points.every((p) => p.timeRatio <= N8N_TARGETS.timeRatio), detail: points(sqlite) },
			{ target: `${label}: ≤ ${N8N_TARGETS.diskRatio} × its disk writes at every point`, pass: sqlite.points.every((p) => p.diskRatio <= N8N_TARGETS.diskRatio), detail: points(sqlite) },
			{
				target: `${label}: after ${n(last.after)} sends within ${Math.round((N8N_TARGETS.growth - 1) * 100)} % of after ${n(first.after)} (time and disk)`,
				pass: sqlite.points.length > 1 && g.time <= N8N_TARGETS.growth && g.disk <= N8N_TARGETS.growth,
				detail: `time ${g.time.toFixed(2)} ×, disk ${g.disk.toFixed(2)} ×`,
			},
		);
	}
	if (!sqliteRows.length) targets.push(notRun("real n8n, SQLite, no Redis, Business, one-SMS executions: against the HTTP Request node and flat with the node's sends"));
	const manyLabel = 'real n8n, SQLite: one execution of N SMS at Business';
	if (many.length) {
		const [small, large] = [many[0], many[many.length - 1]];
		targets.push(
			{
				target: `${manyLabel}: KB written per SMS for ${n(large.items)} within ${Math.round((N8N_TARGETS.manyGrowth - 1) * 100)} % of ${n(small.items)}'s`,
				pass: many.length > 1 && large.kbPerSms <= small.kbPerSms * N8N_TARGETS.manyGrowth,
				detail: many.map((r) => `${n(r.items)}: ${r.kbPerSms} KB per SMS`).join(', '),
			},
			{ target: `${manyLabel}: ≥ ${N8N_TARGETS.rate * 100} % of the plan`, pass: many.every((r) => (r.rateRatio ?? 0) >= N8N_TARGETS.rate), detail: many.map((r) => `${n(r.items)}: ${pct(r.rateRatio)}`).join(', ') },
		);
	} else targets.push(notRun(`${manyLabel}: KB per SMS flat with N, ≥ ${N8N_TARGETS.rate * 100} % of the plan`));
	if (postgres) {
		targets.push({ target: 'real n8n, PostgreSQL, one-SMS executions: the figures printed (ratios shown, not judged)', pass: true, detail: points(postgres) });
	} else targets.push(notRun('real n8n, PostgreSQL, one-SMS executions: the figures printed'));
	const all = [...(figures?.one ?? []), ...many];
	if (all.length) {
		targets.push({
			target: 'real n8n rows: 0 errors, 0 sent twice, 0 lost (counted at the emulator)',
			pass: failures(figures).length === 0,
			detail: all.map((r) => `${r.id}${'items' in r ? ` ${n(r.items)}` : ''}: ${r.errors} errors, ${r.twice} twice, ${r.lost} lost`).join('; '),
		});
	}
	return targets;
}

/** What fails the bench (a quick run too): errors, messages sent twice or lost; a missed ratio does not. */
export function failures(figures: N8nFigures | undefined): string[] {
	return [...(figures?.one ?? []), ...(figures?.many ?? [])]
		.filter((r) => r.errors || r.twice || r.lost)
		.map((r) => `${r.id}${'items' in r ? ` (${n(r.items)} SMS)` : ''}: ${r.errors} errors, ${r.twice} sent twice, ${r.lost} lost${r.firstError ? `; first error: ${r.firstError}` : ''}`);
}
