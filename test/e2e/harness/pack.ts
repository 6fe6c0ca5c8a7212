/** The package as published: `npm pack`, and the two ways it gets into n8n's nodes folder. */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { npmEnv, run } from './processes';
import { PACKAGE_NAME, PACKAGE_ROOT } from './target';

export interface PackedPackage {
	tarball: string;
	version: string;
	files: string[];
	/** bytes of the .tgz */
	size: number;
}

/**
 * What the tarball may hold: package.json, README.md, LICENSE and CHANGELOG.md, the compiled nodes and
 * credentials (no source maps), their icons and codex files, and the nodes' output schemas (__schema__).
 */
const PUBLISHED = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/(nodes|credentials)\/.+\.(js|svg|node\.json)|dist\/nodes\/[^/]+\/__schema__\/.+\.json)$/;

let packed: Promise<PackedPackage> | undefined;

/**
 * `npm pack` of PACKAGE_ROOT (once per process) into a temporary folder, removed at exit. Fails when
 * the tarball holds anything but PUBLISHED, or misses a file that package.json's `n8n` section names.
 */
export function packPackage(): Promise<PackedPackage> {
	packed ??= (async () => {
		const dir = mkdtempSync(join(tmpdir(), 'svc-npm-pack-'));
		process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
		const stdout = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_ROOT, env: npmEnv() });
		const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; version: string; size: number; files: Array<{ path: string }> }>;
		const files = info.files.map((f) => f.path).sort();
		const unexpected = files.filter((f) => !PUBLISHED.test(f));
		if (unexpected.length) throw new Error(`npm pack would publish files it should not: ${unexpected.join(', ')}`);
		const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
		const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials, 'README.md', 'LICENSE', 'CHANGELOG.md'].filter((f) => !files.includes(f));
		if (missing.length) throw new Error(`npm pack left out ${missing.join(', ')} (run \`npm run build\` first?)`);
		return { tarball: join(dir, info.filename), version: info.version, files, size: info.size };
	})();
	return packed;
}

/**
 * Installs the `npm pack` tarball exactly as n8n's Community Nodes UI does (CommunityPackagesService
 * .downloadPackage, the same steps in n8n 1.123.81 and 2.41.1): the tarball is unpacked into
 * `<user folder>/.n8n/nodes/node_modules/<name>`, its package.json loses devDependencies,
 * peerDependencies and optionalDependencies, `npm install` with n8n's flags runs in that folder
 * (runtime dependencies from the npm registry, nothing from this checkout), and the nodes
 * folder's package.json records the version. n8n (started after this) then loads it as it does
 * after a restart. The UI fetches the tarball with `npm pack <name>@<version>`; here it is ours.
 */
export async function installPackedPackage(userFolder: string, path: string, log: (line: string) => void): Promise<void> {
	const pack = await packPackage();
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const packageDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
	// ensurePackageJson()
	const nodesPkg = join(nodesDir, 'package.json');
	mkdirSync(nodesDir, { recursive: true });
	if (!existsSync(nodesPkg)) writeFileSync(nodesPkg, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2), 'utf-8');
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(packageDir, { recursive: true });
	const tarballName = `${PACKAGE_NAME}-${pack.version}.tgz`;
	cpSync(pack.tarball, join(nodesDir, tarballName));
	try {
		await run('tar', ['-xzf', tarballName, '-C', packageDir, '--strip-components=1'], { cwd: nodesDir });
		const packageJsonPath = join(packageDir, 'package.json');
		const { devDependencies, peerDependencies, optionalDependencies, ...packageJson } = JSON.parse(readFileSync(packageJsonPath, 'utf-8'));
		writeFileSync(packageJsonPath, JSON.stringify(packageJson, null, 2), 'utf-8');
		const registry = process.env.N8N_COMMUNITY_PACKAGES_REGISTRY ?? 'https://registry.npmjs.org';
		const flags = ['--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'];
		log(`installing ${tarballName} (${pack.files.length} files) into ${packageDir}: npm install ${flags.join(' ')}`);
		await run('npm', ['install', ...flags, `--registry=${registry}`], { cwd: packageDir, env: npmEnv({ PATH: path }) });
		// updatePackageJsonDependency()
		const installed = JSON.parse(readFileSync(nodesPkg, 'utf-8')) as { dependencies: Record<string, string> };
		installed.dependencies[PACKAGE_NAME] = packageJson.version;
		writeFileSync(nodesPkg, JSON.stringify(installed, null, 2), 'utf-8');
	} finally {
		rmSync(join(nodesDir, tarballName), { force: true });
	}
	// Each runtime dependency at the version package.json pins, inside the installed package.
	for (const [dep, version] of Object.entries((JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf-8')) as { dependencies?: Record<string, string> }).dependencies ?? {})) {
		const found = join(packageDir, 'node_modules', dep, 'package.json');
		const got = existsSync(found) ? (JSON.parse(readFileSync(found, 'utf-8')) as { version: string }).version : 'missing';
		if (got !== version) throw new Error(`npm install of the packed package gave ${dep} ${got}, package.json pins ${version}`);
	}
}

/** Copies package.json and dist/ (not a symlink: the package must resolve n8n-workflow from n8n). */
export function stagePackage(userFolder: string): void {
	const dist = join(PACKAGE_ROOT, 'dist');
	if (!existsSync(join(dist, 'nodes', 'SvcMessaging', 'SvcMessaging.node.js'))) {
		throw new Error('dist/ is missing: run `npm run build` first');
	}
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(join(target, 'node_modules'), { recursive: true });
	const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; version: string };
	cpSync(join(PACKAGE_ROOT, 'package.json'), join(target, 'package.json'));
	cpSync(dist, join(target, 'dist'), { recursive: true });
	// The runtime dependencies, as npm would install them next to the package.
	for (const dep of Object.keys(pkg.dependencies ?? {})) {
		symlinkSync(join(PACKAGE_ROOT, 'node_modules', dep), join(target, 'node_modules', dep), 'dir');
	}
	// What n8n writes when a community package is installed (its nodes folder is an npm project).
	const nodesPkg = join(nodesDir, 'package.json');
	if (!existsSync(nodesPkg)) {
		writeFileSync(nodesPkg, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: pkg.version } }, null, 2));
	}
}
