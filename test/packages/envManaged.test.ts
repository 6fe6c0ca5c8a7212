/**
 * n8n's environment-managed community packages (n8n ≥ 2.21): N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true
 * with N8N_COMMUNITY_PACKAGES='[{"name":"n8n-nodes-svc-messaging","version":…}]' installs the
 * package at start-up, with no custom image. Real n8n 2.41.1 (regular mode, its own user folder)
 * against a local npm registry (verdaccio) where this checkout's package is published as N and
 * N+1: the first start installs N and its node sends an SMS (counted at the emulator); the UI's
 * install is refused while the environment manages packages; a restart with N+1 listed updates it;
 * a restart with the list empty removes it. Before the first start, the custom image's start-up step
 * (docker/link-package.sh) has linked an "image" copy into the nodes folder: the copy n8n installs
 * replaces the link and wins, and the image's copy is left as it was (docs/docker.md: "Both at once").
 *
 * n8n's default registry setting is kept (a custom N8N_COMMUNITY_PACKAGES_REGISTRY needs a licence
 * in n8n 2.41.1, checked before the start-up install): npm reaches the local registry through npm's
 * own proxy settings (test/e2e/harness/npmProxy.ts).
 */
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { emulatorCredentials, N8n, NODE_TYPE, npmEnv, PACKAGE_NAME, packPackage, ROOT, run, TRIGGER_TYPE, type WorkflowJson } from '../e2e/harness';
import { installedPackages, loadedNodeTypes, startManagedN8n, startPackageSource, type ListedPackage, type PackageSource } from '../e2e/harness/managedPackages';
import { startEmulatorWithClient, type EmulatorProcess } from '../e2e/harness/stack';
import { CREDENTIAL_IDS, CREDENTIAL_NAMES } from '../e2e/harness/workflows';

const PHONE = '+254712345678';
const N = '0.1.0';
const N_PLUS_1 = '0.1.1';

let source: PackageSource;
let emulator: EmulatorProcess;
let userFolder: string;
let n8n: N8n | undefined;
/** the "image" copy: /opt/n8n-svc-messaging of docker/Dockerfile, in a temporary folder */
let imageDir: string;
const imagePackage = () => join(imageDir, 'node_modules', PACKAGE_NAME);
const linkStep = async () => await run('sh', [join(ROOT, 'docker', 'link-package.sh'), join(userFolder, '.n8n', 'nodes'), imagePackage()]);

const smsWorkflow: WorkflowJson = {
	name: 'Managed by env',
	nodes: [
		{ id: 'env-trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'env-send',
			name: 'Send SMS',
			type: NODE_TYPE,
			typeVersion: 2,
			position: [280, 0],
			credentials: { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } },
			parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'Installed by N8N_COMMUNITY_PACKAGES', senderId: { __rl: true, mode: 'id', value: 'SVCTEST' }, options: {} },
		},
	],
	connections: { Start: { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	pinData: { Start: [{ json: { phone: PHONE } }] },
};

/** n8n 2.41.1 in regular mode on the one user folder, with these packages listed in its environment. */
async function startN8n(packages: ListedPackage[], first = false): Promise<N8n> {
	return await startManagedN8n(source, packages, { userFolder, credentials: first ? emulatorCredentials(emulator.url) : undefined });
}

const packageDir = () => join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
const onDiskVersion = () => (JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8')) as { version: string }).version;
const logged = (app: N8n, text: string) => app.logLines().some((line) => line.includes(text));

async function sendOne(app: N8n): Promise<void> {
	const workflows = (await app.rest<{ data: Array<{ id: string; name: string }> }>('GET', '/rest/workflows')).data;
	const id = workflows.find((w) => w.name === smsWorkflow.name)?.id ?? (await app.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(smsWorkflow), active: false })).data.id;
	const execution = await app.runManual(id);
	expect(execution.status).toBe('success');
}

beforeAll(async () => {
	source = await startPackageSource(async (registry) => await registry.publish(N));
	emulator = await startEmulatorWithClient({ timeScale: 0.1 });
	userFolder = mkdtempSync(join(tmpdir(), 'svc-n8n-env-'));
	imageDir = mkdtempSync(join(tmpdir(), 'svc-image-opt-'));
	await run('sh', [join(ROOT, 'docker', 'install-package.sh'), imageDir, (await packPackage()).tarball], { env: npmEnv() });
	await linkStep();
}, 240_000);

afterAll(async () => {
	await n8n?.stop();
	await emulator?.stop();
	await source?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
	if (imageDir) rmSync(imageDir, { recursive: true, force: true });
}, 120_000);

test(`start-up with ${PACKAGE_NAME}@N listed installs it from the registry over the image's link; its node sends one SMS`, async () => {
	expect(readlinkSync(packageDir())).toBe(imagePackage());
	n8n = await startN8n([{ name: PACKAGE_NAME, version: N }], true);
	expect(lstatSync(packageDir()).isSymbolicLink()).toBe(false);
	expect(existsSync(join(imagePackage(), 'dist', 'nodes', 'SvcMessaging', 'SvcMessaging.node.js'))).toBe(true);
	// The image's next start leaves the installed copy alone.
	expect(await linkStep()).toMatch(/is an installed copy/);
	expect(lstatSync(packageDir()).isSymbolicLink()).toBe(false);
	const packageLines = n8n.logLines().filter((line) => /community package/i.test(line));
	expect(packageLines.join('\n')).toMatch(new RegExp(`Installed community package '?${PACKAGE_NAME}@${N}'? from env`));
	expect(await installedPackages(n8n)).toEqual([expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: N, failedLoading: false })]);
	expect(await loadedNodeTypes(n8n, PACKAGE_NAME)).toEqual([NODE_TYPE, `${NODE_TYPE}Tool`, TRIGGER_TYPE]);
	expect(onDiskVersion()).toBe(N);
	expect(source.proxy.connects.length).toBeGreaterThan(0);
	await sendOne(n8n);
	expect((await emulator.client.messages()).map((m: { phoneNumber: string }) => m.phoneNumber)).toEqual([PHONE]);
});

test('while the environment manages packages, installing or uninstalling from the UI is refused', async () => {
	const refusal = /managed via environment variables/;
	await expect(n8n!.rest('POST', '/rest/community-packages', { name: PACKAGE_NAME })).rejects.toThrow(refusal);
	await expect(n8n!.rest('DELETE', `/rest/community-packages?name=${PACKAGE_NAME}`)).rejects.toThrow(refusal);
	expect(await installedPackages(n8n!)).toHaveLength(1);
});

test('a restart with N+1 listed updates the package; the updated node sends', async () => {
	await n8n!.stop();
	n8n = undefined;
	await source.registry.publish(N_PLUS_1);
	n8n = await startN8n([{ name: PACKAGE_NAME, version: N_PLUS_1 }]);
	expect(await installedPackages(n8n)).toEqual([expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: N_PLUS_1, failedLoading: false })]);
	expect(onDiskVersion()).toBe(N_PLUS_1);
	await sendOne(n8n);
	expect(await emulator.client.messages()).toHaveLength(2);
});

test('a restart with the package no longer listed removes it', async () => {
	await n8n!.stop();
	n8n = undefined;
	n8n = await startN8n([]);
	expect(await installedPackages(n8n)).toEqual([]);
	expect(await loadedNodeTypes(n8n, PACKAGE_NAME)).toEqual([]);
	expect(existsSync(packageDir())).toBe(false);
	expect(logged(n8n, `Removed community package '${PACKAGE_NAME}'`)).toBe(true);
});
