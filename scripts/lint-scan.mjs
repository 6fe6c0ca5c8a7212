#!/usr/bin/env node
/**
 * `npm run lint:scan`: the lint of n8n's community-package scanner (`npx @n8n/scan-community-package`),
 * run here before publishing. It uses the scanner's own code, not a copy: `buildScanConfig` and
 * `SOURCE_FILE_PATTERNS` are imported from @n8n/scan-community-package (a pinned devDependency, with the
 * ESLint 9.29.0, @n8n/eslint-plugin-community-nodes and eslint-plugin-n8n-nodes-base it pins), and each
 * leg runs as its `analyzePackage` does: local config files and inline `eslint-disable` comments are
 * ignored (`overrideConfigFile: true`, `allowInlineConfig: false`).
 *
 * The scanner lints two things, and so does this script:
 *   1. the source (what the provenance statement points at): package.json, nodes/ and credentials/;
 *   2. the published tarball (`npm pack`): its dist/**\/*.js and package.json.
 * Only the registry steps (the provenance check, downloading the source and the tarball) are left out.
 *
 * Findings are printed grouped by rule. The run fails on any error except those caused by the runtime
 * dependencies this package chose (ALLOWED below; docs/dependencies.md explains the trade-off).
 *
 * `--cloud` (`npm run lint:scan:cloud`, after `npm run build:cloud`): the n8n Cloud edition, with no
 * exception at all — any error or warning fails. Its legs:
 *   1. its source as built (cloud/dist/source: package.json, nodes/ and credentials/ with cloud/platform/
 *      in place of the seams);
 *   2. the repository as the scanner itself finds the package in a checkout (`findPackageRoot`: the
 *      folder whose package.json bears the package's name, cloud/), with SOURCE_FILE_PATTERNS there;
 *   3. its `npm pack` tarball (cloud/dist/package), which must also declare no dependencies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const scannerDir = path.dirname(require.resolve('@n8n/scan-community-package/package.json'));
const scannerRequire = createRequire(path.join(scannerDir, 'scanner', 'scanner.mjs'));
// ESLint 9 as the scanner resolves it (its own dependency, not this repository's ESLint 8).
const { ESLint } = scannerRequire('eslint');
const glob = scannerRequire('fast-glob');
// The scanner makes a temporary folder when loaded (for its downloads): removed again at exit.
scannerRequire('tmp').setGracefulCleanup();
const { buildScanConfig, findPackageRoot, SOURCE_FILE_PATTERNS } = await import(path.join(scannerDir, 'scanner', 'scanner.mjs'));
const cloud = process.argv.includes('--cloud');

/** The runtime dependencies chosen on purpose; zod is imported but resolves from n8n itself. */
const CHOSEN = ['bottleneck', 'ioredis', 'libphonenumber-js', 'zod'];
const chosen = (name) => CHOSEN.some((dep) => name === dep || name.startsWith(`${dep}/`));
/**
 * One Node built-in besides crypto, in one file: "Verify Media Link" resolves a link's host to refuse
 * private addresses (nodes/SvcMessaging/platform/hostAddresses.ts; docs/dependencies.md).
 */
const chosenBuiltin = (name, file) => name === 'node:dns/promises' && /platform[\\/]hostAddresses\.(ts|js)$/.test(file);

/** Findings that these dependencies cause, and nothing else: each test looks at the message itself. */
const ALLOWED = cloud ? {} : {
	'@n8n/community-nodes/no-restricted-imports': (m, file) => {
		const name = /'([^']+)'/.exec(m.message)?.[1] ?? '';
		return chosen(name) || chosenBuiltin(name, file);
	},
	'@n8n/community-nodes/no-runtime-dependencies': (m, file) => runtimeDependencies(file).every(chosen),
};

function runtimeDependencies(file) {
	return Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).dependencies ?? {});
}

/** One leg of the scanner's analyzePackage, returning every message (errors and warnings). */
async function lintLeg(dir, patterns) {
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await buildScanConfig(),
	});
	const files = glob.sync(patterns, { cwd: dir, absolute: true, ignore: ['node_modules/**', '**/package-lock.json'] });
	const results = await eslint.lintFiles(files);
	return { files: files.length, results };
}

function packTarball(packageDir) {
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lint-scan-'));
	const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: packageDir, encoding: 'utf8' });
	if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
	const [{ filename, size, entryCount }] = JSON.parse(pack.stdout);
	const dir = path.join(out, 'package');
	fs.mkdirSync(dir);
	const tar = spawnSync('tar', ['-xzf', path.join(out, path.basename(filename)), '-C', dir, '--strip-components=1']);
	if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
	return { out, dir, size, entryCount };
}

function report(label, dir, { files, results }) {
	const groups = new Map();
	let errors = 0;
	let allowed = 0;
	for (const result of results) {
		for (const message of result.messages) {
			const rule = message.ruleId ?? '(parse error)';
			// The Cloud edition allows nothing: a warning fails it too.
			const isError = message.severity === 2 || cloud;
			const ok = isError && ALLOWED[rule]?.(message, result.filePath) === true;
			if (isError && !ok) errors++;
			if (ok) allowed++;
			const kind = !isError ? 'warning' : ok ? 'allowed: chosen runtime dependency' : 'ERROR';
			const key = `${rule} (${kind})`;
			if (!groups.has(key)) groups.set(key, []);
			groups.get(key).push(`${path.relative(dir, result.filePath)}:${message.line}:${message.column}  ${message.message}`);
		}
	}
	console.log(`\n== ${label}: ${files} files, ${errors} error(s), ${allowed} allowed finding(s)`);
	for (const [key, lines] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
		console.log(`  ${key}: ${lines.length}`);
		for (const line of lines) console.log(`    ${line}`);
	}
	return errors;
}

const scannerVersion = JSON.parse(fs.readFileSync(path.join(scannerDir, 'package.json'), 'utf8')).version;
console.log(`n8n community-package scanner ${scannerVersion}, ESLint ${ESLint.version}${cloud ? ': the n8n Cloud edition, no exceptions' : ''}`);
if (cloud) process.exit(await scanCloud());
if (!fs.existsSync(path.join(root, 'dist'))) {
	console.error('dist/ is missing: run `npm run build` first (the tarball leg lints the built files).');
	process.exit(1);
}
let failures = report('source (package.json, nodes/, credentials/)', root, await lintLeg(root, SOURCE_FILE_PATTERNS));
const tarball = packTarball(root);
try {
	console.log(`\nnpm pack: ${tarball.entryCount} files, ${tarball.size} bytes`);
	failures += report('tarball (dist/**/*.js, package.json)', tarball.dir, await lintLeg(tarball.dir, ['**/*.js', 'package.json']));
} finally {
	fs.rmSync(tarball.out, { recursive: true, force: true });
}
console.log(failures ? `\nlint:scan: ${failures} finding(s) the scanner would reject.` : '\nlint:scan: only the findings of the chosen runtime dependencies remain.');
process.exit(failures ? 1 : 0);

/** The Cloud edition's three legs (see the top); returns the exit code. */
async function scanCloud() {
	const source = path.join(root, 'cloud/dist/source');
	const packageDir = path.join(root, 'cloud/dist/package');
	if (!fs.existsSync(path.join(packageDir, 'package.json'))) {
		console.error('cloud/dist/package is missing: run `npm run build:cloud` first.');
		return 1;
	}
	const { name } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
	let failures = report(`${name} source as built (cloud/dist/source: package.json, nodes/, credentials/)`, source, await lintLeg(source, SOURCE_FILE_PATTERNS));
	// A checkout holds only tracked files: the scanner's package search runs over those.
	const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lint-scan-checkout-'));
	try {
		const tracked = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
		if (tracked.status !== 0) throw new Error(`git ls-files failed: ${tracked.stderr}`);
		for (const file of tracked.stdout.split('\0').filter(Boolean)) {
			if (!fs.existsSync(path.join(root, file)) || fs.lstatSync(path.join(root, file)).isSymbolicLink()) continue;
			fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
			fs.copyFileSync(path.join(root, file), path.join(checkout, file));
		}
		const found = findPackageRoot(checkout, name);
		if (!found) {
			console.log(`\n== the repository as the scanner finds ${name}: no package.json bears that name`);
			failures++;
		} else {
			const label = `the repository as the scanner finds ${name} (${path.relative(checkout, found) || '.'}/: ${SOURCE_FILE_PATTERNS.join(', ')})`;
			failures += report(label, found, await lintLeg(found, SOURCE_FILE_PATTERNS));
		}
	} finally {
		fs.rmSync(checkout, { recursive: true, force: true });
	}
	const tarball = packTarball(packageDir);
	try {
		console.log(`\nnpm pack (cloud/dist/package): ${tarball.entryCount} files, ${tarball.size} bytes`);
		const packed = JSON.parse(fs.readFileSync(path.join(tarball.dir, 'package.json'), 'utf8'));
		const dependencies = Object.keys(packed.dependencies ?? {});
		if (dependencies.length) {
			console.log(`  the packed package.json declares dependencies: ${dependencies.join(', ')}`);
			failures++;
		}
		failures += report('tarball (dist/**/*.js, package.json)', tarball.dir, await lintLeg(tarball.dir, ['**/*.js', 'package.json']));
	} finally {
		fs.rmSync(tarball.out, { recursive: true, force: true });
	}
	console.log(failures ? `\nlint:scan:cloud: ${failures} finding(s); the Cloud edition must have none.` : '\nlint:scan:cloud: 0 errors, 0 warnings.');
	return failures ? 1 : 0;
}
