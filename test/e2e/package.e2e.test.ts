/**
 * The package as the running n8n loaded it: the folder in `<user folder>/.n8n/nodes` is what
 * E2E_INSTALL installed (with `pack`, the `npm pack` tarball installed the way the Community Nodes
 * UI installs a package, dependencies from the npm registry), and n8n lists both nodes and both
 * credentials with their light and dark icons (n8n's themed `{ light, dark }` form) and serves them.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'fs';
import { join, relative } from 'path';

import { e2e } from './context';
import { http, installMode, NODE_TYPE, PACKAGE_NAME, PACKAGE_ROOT, ROOT, TRIGGER_TYPE } from './harness';

const { n8n } = e2e();
const packageDir = join(process.env.E2E_N8N_USER_FOLDER ?? '', '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
	version: string;
	dependencies: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};

/** Every file under `dir` (relative paths), not following symlinks. */
function filesUnder(dir: string, base = dir): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		return entry.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
	});
}

type Themed = { light: string; dark: string };

describe(`the package in n8n's nodes folder (E2E_INSTALL=${installMode()})`, () => {
	it('holds what that install mode puts there, with each runtime dependency at its pinned version', () => {
		const installed = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
		const deps = Object.keys(pkg.dependencies);
		for (const dep of deps) {
			const depDir = join(packageDir, 'node_modules', dep);
			expect((JSON.parse(readFileSync(join(depDir, 'package.json'), 'utf8')) as { version: string }).version).toBe(pkg.dependencies[dep]);
			// pack: a real folder inside the installed package, fetched from the registry; link: this checkout's copy.
			expect(lstatSync(depDir).isSymbolicLink()).toBe(installMode() === 'link');
			if (installMode() === 'link') expect(realpathSync(depDir)).toBe(realpathSync(join(PACKAGE_ROOT, 'node_modules', dep)));
			else expect(realpathSync(depDir)).toBe(join(realpathSync(packageDir), 'node_modules', dep));
		}
		const files = filesUnder(packageDir).filter((f) => !f.startsWith('node_modules/'));
		if (installMode() === 'pack') {
			// What n8n's installer leaves: the tarball's files, package.json without dev/peer/optional dependencies.
			expect(files.sort()).toEqual(
				expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', ...pkg.n8n.nodes, ...pkg.n8n.credentials]),
			);
			expect(files.filter((f) => f.endsWith('.map') || f.startsWith('test') || f.endsWith('.ts'))).toEqual([]);
			expect([installed.devDependencies, installed.peerDependencies, installed.optionalDependencies]).toEqual([undefined, undefined, undefined]);
			const nodesFolder = JSON.parse(readFileSync(join(packageDir, '..', '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
			expect(nodesFolder.dependencies[PACKAGE_NAME]).toBe(pkg.version);
		} else {
			expect(files).toEqual(expect.arrayContaining(['package.json', ...pkg.n8n.nodes, ...pkg.n8n.credentials]));
			expect(installed.version).toBe(pkg.version);
		}
	});
});

describe('icons as n8n serves them', () => {
	const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');
	/** The icon URLs n8n gives the editor, fetched from n8n itself. */
	async function served(iconUrl: Themed): Promise<Record<keyof Themed, { status: number; type: string | null; body: string }>> {
		const get = async (path: string) => {
			const res = await http('GET', `${n8n.url}/${path}`);
			return { status: res.status, type: res.headers.get('content-type'), body: res.text };
		};
		return { light: await get(iconUrl.light), dark: await get(iconUrl.dark) };
	}

	it.each([
		[NODE_TYPE, 'nodes/SvcMessaging'],
		[TRIGGER_TYPE, 'nodes/SvcMessaging'],
	])('%s: light and dark icon', async (type, folder) => {
		const nodes = await n8n.rest<Array<{ name: string; iconUrl?: Themed | string; icon?: unknown }>>('GET', '/types/nodes.json');
		const description = nodes.find((n) => n.name === type);
		expect(description?.iconUrl).toEqual({
			light: `icons/${PACKAGE_NAME}/dist/${folder}/svcMessaging.svg`,
			dark: `icons/${PACKAGE_NAME}/dist/${folder}/svcMessaging.dark.svg`,
		});
		const icons = await served(description!.iconUrl as Themed);
		for (const [theme, file] of [['light', 'svcMessaging.svg'], ['dark', 'svcMessaging.dark.svg']] as const) {
			expect({ status: icons[theme].status, type: icons[theme].type }).toEqual({ status: 200, type: expect.stringContaining('image/svg+xml') });
			expect(icons[theme].body).toBe(source(join(folder, file)));
		}
	});

	it.each(['svcMessagingApi', 'svcMessagingAccountApi'])('credential %s: light and dark icon', async (name) => {
		const credentials = await n8n.rest<Array<{ name: string; iconUrl?: Themed | string }>>('GET', '/types/credentials.json');
		const description = credentials.find((c) => c.name === name);
		expect(description?.iconUrl).toEqual({
			light: `icons/${PACKAGE_NAME}/dist/credentials/svcMessaging.svg`,
			dark: `icons/${PACKAGE_NAME}/dist/credentials/svcMessaging.dark.svg`,
		});
		const icons = await served(description!.iconUrl as Themed);
		expect([icons.light.status, icons.dark.status]).toEqual([200, 200]);
		expect(icons.light.body).toBe(source('credentials/svcMessaging.svg'));
		expect(icons.dark.body).toBe(source('credentials/svcMessaging.dark.svg'));
	});

	it('the packed or copied package has exactly the icon files the descriptions name', () => {
		const icons = filesUnder(join(packageDir, 'dist')).filter((f) => f.endsWith('.svg')).sort();
		expect(icons).toEqual(
			['credentials/svcMessaging.dark.svg', 'credentials/svcMessaging.svg', 'nodes/SvcMessaging/svcMessaging.dark.svg', 'nodes/SvcMessaging/svcMessaging.svg'].sort(),
		);
	});
});
