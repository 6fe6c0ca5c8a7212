#!/usr/bin/env node
/**
 * `npm run build:cloud`: the n8n Cloud edition, built from the repository's one source tree.
 *
 * The shared source (nodes/, credentials/) reaches everything n8n Cloud cannot run through the seam
 * modules of nodes/SvcMessaging/platform/. This script stages that source, replaces each seam by the
 * same-named file of cloud/platform/ (a file there without a self-hosted counterpart is an error: an
 * overlay adds nothing), generates the numbering data when cloud/numbering-data.mjs exists, and
 * compiles the result. No code is copied into the repository: cloud/dist/ is git-ignored.
 *
 *   cloud/dist/source/   the Cloud package's source as n8n's scanner and `n8n-node lint` see it:
 *                        package.json, nodes/, credentials/, eslint.config.mjs (n8n-node's default;
 *                        `npm run lint:cloud` runs `n8n-node lint` there, cloud support on)
 *   cloud/dist/package/  the package folder, ready for `npm pack`: package.json (cloud/package.json,
 *                        the version the self-hosted package's), README.md, LICENSE, dist/
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cloud = path.join(root, 'cloud');
const out = path.join(cloud, 'dist');
const source = path.join(out, 'source');
const pkgDir = path.join(out, 'package');
const seams = 'nodes/SvcMessaging/platform';
const require = createRequire(import.meta.url);
const started = Date.now();

function fail(message) {
	console.error(`build:cloud: ${message}`);
	process.exit(1);
}

function run(command, args, options = {}) {
	const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
	if (result.status !== 0) fail(`${path.basename(command)} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** Files under `dir` (relative to it) whose name passes `keep`. */
function filesUnder(dir, keep = () => true) {
	if (!fs.existsSync(dir)) return [];
	return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && keep(entry.name))
		.map((entry) => path.relative(dir, path.join(entry.parentPath ?? entry.path, entry.name)));
}

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(source, { recursive: true });

// 1. The shared source, then the Cloud edition's seams over it.
for (const dir of ['nodes', 'credentials']) fs.cpSync(path.join(root, dir), path.join(source, dir), { recursive: true });
const overlay = filesUnder(path.join(cloud, 'platform'), (name) => name.endsWith('.ts'));
if (overlay.length === 0) fail('cloud/platform/ holds no seam');
for (const file of overlay) {
	const target = path.join(source, seams, file);
	if (!fs.existsSync(target)) fail(`cloud/platform/${file} replaces nothing: ${seams}/${file} does not exist`);
	// A Cloud seam imports the shapes both editions share (seamTypes.ts) from the self-hosted seam
	// folder, so that the repository's typecheck resolves it; in the build, that folder is its own.
	const text = fs.readFileSync(path.join(cloud, 'platform', file), 'utf8');
	fs.writeFileSync(target, text.replaceAll(`'../../${seams}/`, `'./`));
}
console.log(`build:cloud: ${overlay.length} seam(s) replaced: ${overlay.map((f) => `platform/${f}`).join(', ')}`);

// 2. Data generated at build time (the six countries' numbering data, from the libphonenumber-js dev dependency).
const numberingScript = path.join(cloud, 'numbering-data.mjs');
if (fs.existsSync(numberingScript)) {
	run(process.execPath, [numberingScript, path.join(source, seams, 'numberingData.json')]);
} else {
	console.log('build:cloud: cloud/numbering-data.mjs not present: no numbering data generated');
}

// 3. package.json: the template, with the self-hosted package's version (one release, two packages).
const template = JSON.parse(fs.readFileSync(path.join(cloud, 'package.json'), 'utf8'));
const selfHosted = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const manifest = { ...template, version: selfHosted.version };
if (manifest.dependencies && Object.keys(manifest.dependencies).length) fail('cloud/package.json declares dependencies: a verified package may have none');
const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
fs.writeFileSync(path.join(source, 'package.json'), manifestText);
// n8n-node's own default config (its strict mode requires this file unchanged): `n8n-node lint` with cloud support.
fs.copyFileSync(path.join(root, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs'), path.join(source, 'eslint.config.mjs'));

// `n8n-node lint` runs `npm exec -- eslint .` here: the ESLint 9 that @n8n/node-cli brings, as the local binary.
fs.mkdirSync(path.join(source, 'node_modules/.bin'), { recursive: true });
fs.symlinkSync(path.join(root, 'node_modules/@n8n/node-cli/node_modules/eslint/bin/eslint.js'), path.join(source, 'node_modules/.bin/eslint'));

// 4. Compile the staged source into the package folder.
const tsconfig = {
	extends: path.relative(source, path.join(root, 'tsconfig.json')),
	compilerOptions: { rootDir: '.', outDir: path.relative(source, path.join(pkgDir, 'dist')), types: ['node'], sourceMap: false },
	include: ['credentials/**/*', 'nodes/**/*', 'nodes/**/*.json'],
};
fs.writeFileSync(path.join(source, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(source, 'tsconfig.json')]);

// 5. What tsc does not emit: icons, codex files (*.node.json), output schemas (as gulpfile.js's build:icons).
const assets = [
	['nodes', (name) => /\.(png|svg)$/.test(name) || name.endsWith('.node.json')],
	['nodes', (name, rel) => name.endsWith('.json') && rel.split(path.sep).includes('__schema__')],
	['credentials', (name) => /\.(png|svg)$/.test(name)],
];
for (const [dir, keep] of assets) {
	const from = path.join(source, dir);
	for (const rel of filesUnder(from).filter((rel) => keep(path.basename(rel), rel))) {
		const target = path.join(pkgDir, 'dist', dir, rel);
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.copyFileSync(path.join(from, rel), target);
	}
}
// A codex file names its node type (`<package>.<name>`): the Cloud edition's names, from its compiled edition.
const { EDITION } = require(path.join(pkgDir, 'dist', seams, 'edition.js'));
const nodeNames = { SvcMessaging: EDITION.action.name, SvcMessagingTrigger: EDITION.trigger.name };
for (const [file, name] of Object.entries(nodeNames)) {
	const codexPath = path.join(pkgDir, 'dist/nodes/SvcMessaging', `${file}.node.json`);
	const codex = JSON.parse(fs.readFileSync(codexPath, 'utf8'));
	codex.node = `${EDITION.packageName}.${name}`;
	fs.writeFileSync(codexPath, `${JSON.stringify(codex, null, '\t')}\n`);
}
if (EDITION.packageName !== manifest.name) fail(`cloud/platform/edition.ts names ${EDITION.packageName}, cloud/package.json ${manifest.name}`);

// 6. The package folder: manifest, README (its "Which package" table covers both), LICENSE.
fs.writeFileSync(path.join(pkgDir, 'package.json'), manifestText);
for (const file of ['README.md', 'LICENSE']) fs.copyFileSync(path.join(root, file), path.join(pkgDir, file));
for (const registered of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
	if (!fs.existsSync(path.join(pkgDir, registered))) fail(`package.json registers ${registered}, which the build did not emit`);
}
console.log(`build:cloud: ${manifest.name}@${manifest.version} in ${path.relative(root, pkgDir)} (${((Date.now() - started) / 1000).toFixed(1)} s); npm pack ${path.relative(root, pkgDir)}`);
