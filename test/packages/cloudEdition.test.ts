/**
 * The n8n Cloud edition (cloud/, `npm run build:cloud`) in real n8n 2.41.1, installed the
 * way n8n installs a package: its `npm pack` tarball (cloud/dist/package) published to the local
 * registry and listed in N8N_COMMUNITY_PACKAGES. It has no dependencies, so n8n installs nothing beside
 * it (n8n also drops peerDependencies before its `npm install`): n8n-workflow and zod resolve from n8n
 * itself (n8n adds its own module paths to NODE_PATH when it loads nodes; n8n 2.41.1 depends on zod
 * 3.25.76). Its node sends against the emulator (counted there) and refuses bad input before any
 * request; then the self-hosted package is listed too, and both node sets load and send in one n8n.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { emulatorCredentials, N8n, NODE_TYPE, PACKAGE_NAME, ROOT, TRIGGER_TYPE, type CredentialJson, type WorkflowJson } from '../e2e/harness';
import { startNpmProxy, type NpmProxy } from '../e2e/harness/npmProxy';
import { startRegistry, type LocalRegistry } from '../e2e/harness/registry';
import { startEmulatorWithClient, type EmulatorProcess } from '../e2e/harness/stack';
import { CREDENTIAL_IDS, CREDENTIAL_NAMES } from '../e2e/harness/workflows';

const CLOUD_DIR = join(ROOT, 'cloud', 'dist', 'package');
if (!existsSync(join(CLOUD_DIR, 'package.json'))) throw new Error('cloud/dist/package is missing: run `npm run build:cloud` first');
const CLOUD = JSON.parse(readFileSync(join(CLOUD_DIR, 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: object };
/** The Cloud edition's names, from its own compiled platform/edition.ts. */
const { EDITION } = require(join(CLOUD_DIR, 'dist/nodes/SvcMessaging/platform/edition.js')) as {
	EDITION: { packageName: string; action: { name: string }; trigger: { name: string }; apiKeyCredential: { name: string } };
};
const CLOUD_NODE = `${EDITION.packageName}.${EDITION.action.name}`;
const CLOUD_TRIGGER = `${EDITION.packageName}.${EDITION.trigger.name}`;
const SELF_HOSTED_VERSION = '0.1.0';

const CLOUD_CREDENTIAL = { id: 'svcCloudStarter1', name: 'SVC Messaging Cloud API (emulator, Starter)' };
const PHONES = ['+254712345678', '+255712345678'];

let registry: LocalRegistry;
let proxy: NpmProxy;
let emulator: EmulatorProcess;
let userFolder: string;
let n8n: N8n | undefined;

function cloudCredential(emulatorUrl: string): CredentialJson {
	return {
		...CLOUD_CREDENTIAL,
		type: EDITION.apiKeyCredential.name,
		data: { baseUrl: emulatorUrl, apiKey: 'svc_test_starter_0001', plan: 'starter' },
	};
}

/** Manual trigger → one send node of `type` with `credentials`, over pinned items. */
function sendWorkflow(name: string, type: string, credentials: Record<string, { id: string; name: string }>, phones: string[]): WorkflowJson {
	return {
		name,
		nodes: [
			{ id: `${name}-trigger`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: `${name}-send`,
				name: 'Send SMS',
				type,
				typeVersion: 2,
				position: [280, 0],
				credentials,
				parameters: { resource: 'sms', operation: 'send', phoneNumber: '={{ $json.phone }}', message: `Sent by ${name}`, senderId: { __rl: true, mode: 'id', value: 'SVCTEST' }, options: {} },
			},
		],
		connections: { Start: { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: { Start: phones.map((phone) => ({ json: { phone } })) },
	};
}

const cloudSend = (name: string, phones: string[]) => sendWorkflow(name, CLOUD_NODE, { [EDITION.apiKeyCredential.name]: CLOUD_CREDENTIAL }, phones);

async function startN8n(packages: Array<{ name: string; version: string }>, first = false): Promise<N8n> {
	return await N8n.start({
		target: '2',
		userFolder,
		installPackage: false,
		credentials: first ? [...emulatorCredentials(emulator.url), cloudCredential(emulator.url)] : undefined,
		env: {
			N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
			N8N_COMMUNITY_PACKAGES: JSON.stringify(packages),
			npm_config_https_proxy: proxy.proxyUrl,
			npm_config_cafile: proxy.cafile,
		},
	});
}

const installed = async (app: N8n) =>
	(await app.rest<{ data: Array<{ packageName: string; installedVersion: string; failedLoading?: boolean }> }>('GET', '/rest/community-packages')).data.sort((a, b) => a.packageName.localeCompare(b.packageName));
const loadedTypes = async (app: N8n, prefix: string) => (await app.rest<Array<{ name: string }>>('GET', '/types/nodes.json')).map((t) => t.name).filter((name) => name.startsWith(`${prefix}.`)).sort();
const cloudPackageDir = () => join(userFolder, '.n8n', 'nodes', 'node_modules', CLOUD.name);

async function run(app: N8n, workflow: WorkflowJson) {
	const { data } = await app.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(workflow), active: false });
	return await app.runManual(data.id);
}

beforeAll(async () => {
	expect(CLOUD.dependencies).toBeUndefined();
	registry = await startRegistry();
	await registry.publishFolder(CLOUD_DIR);
	await registry.publish(SELF_HOSTED_VERSION);
	proxy = await startNpmProxy(new URL(registry.upstream).host, registry.url);
	emulator = await startEmulatorWithClient({ timeScale: 0.1 });
	userFolder = mkdtempSync(join(tmpdir(), 'svc-n8n-cloud-'));
}, 240_000);

afterAll(async () => {
	await n8n?.stop();
	await emulator?.stop();
	await proxy?.stop();
	await registry?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
}, 120_000);

test(`${CLOUD.name} alone: N8N_COMMUNITY_PACKAGES installs it with nothing beside it; its node sends`, async () => {
	n8n = await startN8n([{ name: CLOUD.name, version: CLOUD.version }], true);
	expect(await installed(n8n)).toEqual([expect.objectContaining({ packageName: CLOUD.name, installedVersion: CLOUD.version, failedLoading: false })]);
	expect(await loadedTypes(n8n, CLOUD.name)).toEqual([CLOUD_NODE, `${CLOUD_NODE}Tool`, CLOUD_TRIGGER]);
	// No dependency installed: the package folder holds only what the tarball held.
	expect(readdirSync(cloudPackageDir()).filter((name) => name === 'node_modules')).toEqual([]);
	const execution = await run(n8n, cloudSend('Cloud send', PHONES));
	expect(execution.status === 'success' ? execution.status : JSON.stringify(execution).slice(0, 3000)).toBe('success');
	expect((await emulator.client.messages()).map((m: { phoneNumber: string }) => m.phoneNumber).sort()).toEqual([...PHONES].sort());
});

test('the Cloud node refuses bad input before any request, as the self-hosted one does', async () => {
	const before = (await emulator.client.messages()).length;
	const execution = await run(n8n!, cloudSend('Cloud bad input', ['+254712345678', '12345']));
	expect(execution.status).toBe('error');
	expect(JSON.stringify(execution)).toMatch(/Item 1: \\"Phone Number\\"/);
	expect(await emulator.client.messages()).toHaveLength(before);
});

test('both packages listed: both node sets load side by side and both send', async () => {
	await n8n!.stop();
	n8n = undefined;
	n8n = await startN8n([
		{ name: CLOUD.name, version: CLOUD.version },
		{ name: PACKAGE_NAME, version: SELF_HOSTED_VERSION },
	]);
	expect(await installed(n8n)).toEqual([
		expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: SELF_HOSTED_VERSION, failedLoading: false }),
		expect.objectContaining({ packageName: CLOUD.name, installedVersion: CLOUD.version, failedLoading: false }),
	]);
	expect(await loadedTypes(n8n, CLOUD.name)).toEqual([CLOUD_NODE, `${CLOUD_NODE}Tool`, CLOUD_TRIGGER]);
	expect(await loadedTypes(n8n, PACKAGE_NAME)).toEqual([NODE_TYPE, `${NODE_TYPE}Tool`, TRIGGER_TYPE]);
	const credentialTypes = (await n8n.rest<Array<{ name: string }>>('GET', '/types/credentials.json')).map((t) => t.name);
	expect(credentialTypes).toEqual(expect.arrayContaining(['svcMessagingApi', 'svcMessagingAccountApi', EDITION.apiKeyCredential.name]));
	const before = (await emulator.client.messages()).length;
	const selfHosted = await run(n8n, sendWorkflow('Self-hosted send', NODE_TYPE, { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } }, ['+256712345678']));
	const cloud = await run(n8n, cloudSend('Cloud send beside it', ['+250788123456']));
	// A failed run shows its execution (the error) in the assertion's output.
	expect([selfHosted, cloud].map((e) => (e.status === 'success' ? e.status : JSON.stringify(e).slice(0, 3000)))).toEqual(['success', 'success']);
	const after = await emulator.client.messages();
	expect(after.slice(before).map((m: { phoneNumber: string }) => m.phoneNumber).sort()).toEqual(['+250788123456', '+256712345678']);
});
