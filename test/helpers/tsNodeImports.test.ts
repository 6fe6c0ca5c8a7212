/**
 * Under ts-node an import of '…/SvcMessaging.node' can load the codex file SvcMessaging.node.json
 * (Node tries `.js`, `.json`, `.node` before ts-node's `.ts`; jest tries `.ts` first, so only the
 * scripts run outside jest break). Every script run through ts-node — the bench and its
 * workers, `npm run emulator` (also the emulator process of the e2e suites and the bench), `demo`, `dev` — is followed
 * here through its relative imports, resolved as Node resolves them under ts-node: none may land
 * on a JSON file it did not name. Then the classes are loaded for real under ts-node.
 */
import { execFileSync } from 'child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

const ROOT = join(__dirname, '..', '..');
/** Node's extension order with ts-node registered (ts-node appends `.ts`). */
const NODE_ORDER = ['.js', '.json', '.node', '.ts'];

function tsFiles(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return tsFiles(path);
		return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
	});
}

/** The entry points: every `ts-node … <file>.ts` of package.json's scripts, the bench, the child processes. */
function entryPoints(): string[] {
	const scripts = Object.values((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
	const named = scripts.flatMap((s) => [...s.matchAll(/ts-node\s+(?:--\S+\s+)*(\S+\.ts)/g)].map((m) => join(ROOT, m[1])));
	return [...named, ...tsFiles(join(ROOT, 'bench')), ...tsFiles(join(ROOT, 'scripts')), join(ROOT, 'test/emulator/cli.ts')];
}

function resolveAsNode(from: string, specifier: string): string | undefined {
	const base = resolve(dirname(from), specifier);
	const candidates = [base, ...NODE_ORDER.map((ext) => base + ext), ...NODE_ORDER.map((ext) => join(base, `index${ext}`))];
	return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Relative specifiers of runtime imports (`import type` is erased). */
function runtimeImports(source: string): string[] {
	const found: string[] = [];
	for (const m of source.matchAll(/^\s*import\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gm)) found.push(m[1]);
	for (const m of source.matchAll(/^\s*export\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gm)) found.push(m[1]);
	for (const m of source.matchAll(/(?:require|import)\(\s*'(\.[^']+)'\s*\)/g)) found.push(m[1]);
	for (const m of source.matchAll(/^\s*import\s+'(\.[^']+)'/gm)) found.push(m[1]);
	return found;
}

it('no script run through ts-node imports a node or credential that resolves to a JSON file', () => {
	const roots = entryPoints();
	expect(roots.map((r) => relative(ROOT, r))).toEqual(expect.arrayContaining(['bench/run.ts', 'bench/worker.ts', 'test/emulator/cli.ts', 'test/e2e/demo.ts', 'test/e2e/dev.ts']));
	// What packageClasses.ts loads by its `.ts` name is followed too.
	const queue = [...roots, ...tsFiles(join(ROOT, 'nodes')), ...tsFiles(join(ROOT, 'credentials'))];
	const seen = new Set<string>();
	const traps: string[] = [];
	while (queue.length) {
		const file = queue.pop()!;
		if (seen.has(file) || !existsSync(file)) continue;
		seen.add(file);
		for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
			const target = resolveAsNode(file, specifier);
			if (!target) continue;
			if (target.endsWith('.json') && !specifier.endsWith('.json')) traps.push(`${relative(ROOT, file)}: '${specifier}' → ${relative(ROOT, target)}`);
			if (target.endsWith('.ts')) queue.push(target);
		}
	}
	expect(seen.has(join(ROOT, 'test/helpers/n8n.ts'))).toBe(true);
	expect(traps).toEqual([]);
});

it('under ts-node the helpers load the node and credential classes, not their codex files', () => {
	const script = [
		"const c = require('./test/helpers/packageClasses');",
		'const names = [new c.SvcMessaging(), new c.SvcMessagingTrigger(), new c.SvcMessagingApi(), new c.SvcMessagingAccountApi()]',
		'  .map((x) => x.description ? x.description.name : x.name);',
		'process.stdout.write(JSON.stringify(names));',
	].join('\n');
	const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
	expect(JSON.parse(out)).toEqual(['svcMessaging', 'svcMessagingTrigger', 'svcMessagingApi', 'svcMessagingAccountApi']);
}, 60_000);
