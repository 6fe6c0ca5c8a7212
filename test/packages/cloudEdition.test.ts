/**
 * The n8n Cloud edition (cloud/, `npm run build:cloud`) in real n8n 2.41.1, installed the
 * way n8n installs a package: its `npm pack` tarball (cloud/dist/package) published to the local
 * registry and listed in N8N_COMMUNITY_PACKAGES. It has no dependencies, so n8n installs nothing beside
 * it (n8n also drops peerDependencies before its `npm install`): n8n-workflow and zod resolve from n8n
 * itself (n8n adds its own module paths to NODE_PATH when it loads nodes; n8n 2.41.1 depends on zod
 * 3.25.76). Its node sends against the emulator (counted there) and refuses bad input before any
 * request; then the self-hosted package is listed too, and both node sets load and send in one n8n.
 */
import { mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { emulatorCredentials, N8n, NODE_TYPE, PACKAGE_NAME, TRIGGER_TYPE, type WorkflowJson } from '../e2e/harness';
import { CLOUD_DIR, cloudCredentialRef, cloudCredentials, cloudEdition } from '../e2e/harness/cloudEdition';
import { installedPackages, loadedNodeTypes, startManagedN8n, startPackageSource, type ListedPackage, type PackageSource } from '../e2e/harness/managedPackages';
import { startEmulatorWithClient, type EmulatorProcess } from '../e2e/harness/stack';
import { CREDENTIAL_IDS, CREDENTIAL_NAMES } from '../e2e/harness/workflows';

const { manifest: CLOUD, nodeType: CLOUD_NODE, triggerType: CLOUD_TRIGGER, apiKeyCredential: CLOUD_API_CREDENTIAL } = cloudEdition();
const SELF_HOSTED_VERSION = '0.1.0';
const PHONES = ['+254712345678', '+255712345678'];

let source: PackageSource;
let emulator: EmulatorProcess;
let userFolder: string;
let n8n: N8n | undefined;

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

const cloudSend = (name: string, phones: string[]) => sendWorkflow(name, CLOUD_NODE, cloudCredentialRef('starter'), phones);

async function startN8n(packages: ListedPackage[], first = false): Promise<N8n> {
	return await startManagedN8n(source, packages, { userFolder, credentials: first ? [...emulatorCredentials(emulator.url), ...cloudCredentials(emulator.url)] : undefined });
}

const cloudPackageDir = () => join(userFolder, '.n8n', 'nodes', 'node_modules', CLOUD.name);

async function run(app: N8n, workflow: WorkflowJson) {
	const { data } = await app.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(workflow), active: false });
	return await app.runManual(data.id);
}

beforeAll(async () => {
	expect(CLOUD.dependencies).toBeUndefined();
	source = await startPackageSource(async (registry) => {
		await registry.publishFolder(CLOUD_DIR);
		await registry.publish(SELF_HOSTED_VERSION);
	});
	emulator = await startEmulatorWithClient({ timeScale: 0.1 });
	userFolder = mkdtempSync(join(tmpdir(), 'svc-n8n-cloud-'));
}, 240_000);

afterAll(async () => {
	await n8n?.stop();
	await emulator?.stop();
	await source?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
}, 120_000);

test(`${CLOUD.name} alone: N8N_COMMUNITY_PACKAGES installs it with nothing beside it; its node sends`, async () => {
	n8n = await startN8n([{ name: CLOUD.name, version: CLOUD.version }], true);
	expect(await installedPackages(n8n)).toEqual([expect.objectContaining({ packageName: CLOUD.name, installedVersion: CLOUD.version, failedLoading: false })]);
	expect(await loadedNodeTypes(n8n, CLOUD.name)).toEqual([CLOUD_NODE, `${CLOUD_NODE}Tool`, CLOUD_TRIGGER]);
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
	expect(await installedPackages(n8n)).toEqual([
		expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: SELF_HOSTED_VERSION, failedLoading: false }),
		expect.objectContaining({ packageName: CLOUD.name, installedVersion: CLOUD.version, failedLoading: false }),
	]);
	expect(await loadedNodeTypes(n8n, CLOUD.name)).toEqual([CLOUD_NODE, `${CLOUD_NODE}Tool`, CLOUD_TRIGGER]);
	expect(await loadedNodeTypes(n8n, PACKAGE_NAME)).toEqual([NODE_TYPE, `${NODE_TYPE}Tool`, TRIGGER_TYPE]);
	const credentialTypes = (await n8n.rest<Array<{ name: string }>>('GET', '/types/credentials.json')).map((t) => t.name);
	expect(credentialTypes).toEqual(expect.arrayContaining(['svcMessagingApi', 'svcMessagingAccountApi', CLOUD_API_CREDENTIAL]));
	const before = (await emulator.client.messages()).length;
	const selfHosted = await run(n8n, sendWorkflow('Self-hosted send', NODE_TYPE, { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } }, ['+256712345678']));
	const cloud = await run(n8n, cloudSend('Cloud send beside it', ['+250788123456']));
	// A failed run shows its execution (the error) in the assertion's output.
	expect([selfHosted, cloud].map((e) => (e.status === 'success' ? e.status : JSON.stringify(e).slice(0, 3000)))).toEqual(['success', 'success']);
	const after = await emulator.client.messages();
	expect(after.slice(before).map((m: { phoneNumber: string }) => m.phoneNumber).sort()).toEqual(['+250788123456', '+256712345678']);
});
