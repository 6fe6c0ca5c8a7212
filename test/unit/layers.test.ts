import { readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/**
 * The action node's layers (docs/layout.md): a file imports only from its own layer or a lower
 * one, so a promise kept in one layer cannot be bypassed from above or re-written beside it.
 */
const NODE = resolve(__dirname, '../../nodes/SvcMessaging');
const RANK: Record<string, number> = {
	'': 0, // the node classes
	actions: 1,
	methods: 1,
	trigger: 1,
	sending: 2,
	aiTool: 3,
	rules: 4,
	api: 5,
	stores: 5,
	transport: 6,
	// what differs between the self-hosted package and the n8n Cloud edition (cloud/platform/): imports no layer
	platform: 7,
};
/** Same-rank folders that must not import each other. */
const APART = [
	['methods', 'actions'],
	['trigger', 'actions'],
	['trigger', 'methods'],
];

function files(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return files(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

const layerOf = (file: string) => {
	const top = relative(NODE, file).split('/');
	return top.length === 1 ? '' : top[0];
};

const imports = files(NODE).flatMap((file) =>
	[...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) => ({
		from: relative(NODE, file),
		to: relative(NODE, resolve(dirname(file), m[1])),
		fromLayer: layerOf(file),
		toLayer: layerOf(resolve(dirname(file), m[1])),
	})),
);

describe('layers', () => {
	it('every layer is known', () => {
		expect(imports.length).toBeGreaterThan(100);
		for (const { fromLayer, toLayer, to } of imports) {
			if (to.startsWith('..')) continue;
			expect(Object.keys(RANK)).toContain(fromLayer);
			expect(Object.keys(RANK)).toContain(toLayer);
		}
	});

	it('no import runs up a layer', () => {
		const upward = imports.filter((i) => !i.to.startsWith('..') && RANK[i.toLayer] < RANK[i.fromLayer]);
		expect(upward.map((i) => `${i.from} → ${i.to}`)).toEqual([]);
	});

	it('methods/ and trigger/ import nothing from actions/', () => {
		const across = imports.filter((i) => APART.some(([a, b]) => i.fromLayer === a && i.toLayer === b));
		expect(across.map((i) => `${i.from} → ${i.to}`)).toEqual([]);
	});

	it('only api/ and transport/ call transport/request.ts', () => {
		const direct = imports.filter((i) => i.to === 'transport/request' && !['api', 'transport', 'sending'].includes(i.fromLayer));
		expect(direct.map((i) => i.from)).toEqual([]);
	});

	it('only sending/ opens the send ledger or marks messages under way: one place decides never-twice', () => {
		const outside = files(NODE)
			.filter((file) => layerOf(file) !== 'sending')
			.filter((file) => /\b(openSendLedger|openLedger)\b|\.begin\(/.test(readFileSync(file, 'utf8')));
		expect(outside.map((file) => relative(NODE, file))).toEqual([]);
	});

	it("inside sending/, n8n's context reaches only the entries: the rest takes the narrow SendRun", () => {
		// sendRun.ts reads the context once; postEach.ts is the operations' entry that opens the run;
		// outcomes.ts's failureOf wraps an error for the executor with the node alone (Pick of getNode).
		const entries = ['sending/sendRun.ts', 'sending/postEach.ts', 'sending/outcomes.ts'];
		const withContext = files(join(NODE, 'sending'))
			.map((file) => relative(NODE, file))
			.filter((file) => !entries.includes(file))
			.filter((file) => /\bIExecuteFunctions\b|\bctx\b/.test(readFileSync(join(NODE, file), 'utf8')));
		expect(withContext).toEqual([]);
	});

	it("transport/service.ts keeps the service's facts and not-shown assumptions, not this package's tuning", () => {
		const service = readFileSync(join(NODE, 'transport/service.ts'), 'utf8');
		const tuning = ['SEND_LEDGER', 'DELIVERY_WAIT', 'BULK_RECIPIENTS_IN_FLIGHT', 'LOGIN_RETRY', 'MEDIA_CHECK', 'TRIGGER_LIMITS'];
		expect(tuning.filter((name) => new RegExp(`export const ${name}\\b`).test(service))).toEqual([]);
	});

	it('no files import each other in a loop (type imports included)', () => {
		const edges = new Map<string, string[]>();
		for (const { from, to } of imports) if (!to.startsWith('..')) edges.set(from.replace(/\.ts$/, ''), [...(edges.get(from.replace(/\.ts$/, '')) ?? []), to.replace(/\/index$/, '/index')]);
		const resolved = (to: string) => (edges.has(to) ? to : edges.has(`${to}/index`) ? `${to}/index` : to);
		const loops: string[] = [];
		const state = new Map<string, 'open' | 'done'>();
		const visit = (file: string, path: string[]) => {
			if (state.get(file) === 'done') return;
			if (state.get(file) === 'open') {
				loops.push([...path.slice(path.indexOf(file)), file].join(' → '));
				return;
			}
			state.set(file, 'open');
			for (const next of edges.get(file) ?? []) visit(resolved(next), [...path, file]);
			state.set(file, 'done');
		};
		for (const file of edges.keys()) visit(file, []);
		expect(loops).toEqual([]);
	});

	it('sending/: a folder per concern, none of more than 12 files; the stages in one ordered list', () => {
		const folders = [join(NODE, 'sending'), ...readdirSync(join(NODE, 'sending')).map((name) => join(NODE, 'sending', name)).filter((path) => statSync(path).isDirectory())];
		const crowded = folders.filter((folder) => readdirSync(folder).filter((name) => name.endsWith('.ts')).length > 12);
		expect(crowded.map((folder) => relative(NODE, folder))).toEqual([]);
		const stages = readdirSync(join(NODE, 'sending/stages')).filter((name) => !['index.ts', 'stage.ts'].includes(name));
		const list = readFileSync(join(NODE, 'sending/stages/index.ts'), 'utf8');
		expect(stages.filter((name) => !list.includes(`from './${name.replace(/\.ts$/, '')}'`))).toEqual([]);
	});
});
