/**
 * The way nearly every user installs the package: Settings → Community Nodes → Install, typing its
 * name, in headless Chromium against a real n8n whose npm installs from a local npm registry
 * (verdaccio, test/e2e/harness/registry.ts) where this checkout's package is published as version
 * N. Both nodes load and one SMS is sent with the installed node (counted at the emulator). Then
 * N+1 is published; the Update that n8n's page offers is applied, and the updated node sends.
 * Uninstall removes the package and its nodes. Then the n8n Cloud edition's tarball (cloud/dist/package,
 * `npm run build:cloud`) is published and installed the same way; its nodes load and its node sends.
 *
 * What n8n needs for this, found in its code (modules/community-packages/), set by configuration
 * only:
 * - N8N_COMMUNITY_PACKAGES_REGISTRY: the registry n8n's own npm commands use (`npm pack`, the
 *   dependencies' `npm install`, the version check). A registry other than the public one is a
 *   licensed feature (`feat:communityNodes:customRegistry`; without it the install fails with
 *   "Your license does not allow for feat:communityNodes:customRegistry"). No licence is
 *   available here, so n8n runs with E2E_TESTS=true, n8n's own switch for its end-to-end tests,
 *   which turns every licensed feature off and lets PATCH /rest/e2e/feature turn on one: only this
 *   one is turned on.
 * - npm_config_registry: the Update button appears when `npm outdated`, which n8n runs in its
 *   nodes folder without a --registry flag, reports a newer version: npm's own setting must name
 *   the same registry.
 * - Nothing for the vetting look-ups: n8n asks api.n8n.io whether the package is banned and the
 *   vetted-packages list for verified installs; both fail here (no such host) and n8n goes on
 *   (unverified install, N8N_UNVERIFIED_PACKAGES_ENABLED true by default in n8n 2).
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

import { CREDENTIAL_IDS, CREDENTIAL_NAMES, NODE_TYPE, PACKAGE_NAME, TRIGGER_TYPE, type Stack, type WorkflowJson } from '../e2e/harness';
import { CLOUD_CREDENTIALS, CLOUD_DIR, cloudEdition } from '../e2e/harness/cloudEdition';
import { installedPackages, loadedNodeTypes, type InstalledPackage } from '../e2e/harness/managedPackages';
import { CLOUD_PACKAGE_NAME, startRegistry, type LocalRegistry } from '../e2e/harness/registry';
import { waitFor } from '../helpers/waitFor';
import { openEditorOnOwnN8n, screenshot, type EditorSession } from './editorSession';

const PHONE = '+254712345678';
const N = '0.1.0';
const N_PLUS_1 = '0.1.1';
const CUSTOM_REGISTRY = 'feat:communityNodes:customRegistry';

/** Manual trigger (one pinned number) → Send SMS of `type` on `credentials`. */
const smsWorkflowOf = (name: string, id: string, type: string, credentials: Record<string, { id: string; name: string }>, phone: string): WorkflowJson => ({
	name,
	nodes: [
		{ id: `${id}-trigger`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: `${id}-send`,
			name: 'Send SMS',
			type,
			typeVersion: 2,
			position: [280, 0],
			credentials,
			parameters: {
				resource: 'sms',
				operation: 'send',
				phoneNumber: '={{ $json.phone }}',
				message: 'Installed from Settings → Community Nodes',
				senderId: { __rl: true, mode: 'list', value: 'SVCTEST', cachedResultName: 'SVCTEST' },
				options: {},
			},
		},
	],
	connections: { Start: { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	pinData: { Start: [{ json: { phone } }] },
});
const smsWorkflow = smsWorkflowOf('Installed from the registry', 'reg', NODE_TYPE, { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } }, PHONE);

let session: EditorSession<Stack>;
let registry: LocalRegistry;

beforeAll(async () => {
	registry = await startRegistry();
	await registry.publish(N);
	session = await openEditorOnOwnN8n({
		installPackage: false,
		env: { E2E_TESTS: 'true', N8N_COMMUNITY_PACKAGES_REGISTRY: `${registry.url}/`, npm_config_registry: `${registry.url}/` },
	});
	await session.stack.n8n.rest('PATCH', '/rest/e2e/feature', { feature: CUSTOM_REGISTRY, enabled: true });
}, 300_000);

afterAll(async () => {
	await session?.close();
	await registry?.stop();
}, 60_000);

afterEach(async () => {
	if (session) await screenshot(session, 'community-packages-last').catch(() => undefined);
});

const installed = async (): Promise<InstalledPackage[]> => await installedPackages(session.stack.n8n);
/** The node types the editor loads (what the nodes panel offers). */
const loadedTypes = async (packageName = PACKAGE_NAME): Promise<string[]> => await loadedNodeTypes(session.stack.n8n, packageName);
const packageDir = () => join(session.stack.n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
/** The card that shows `packageName`: not the Cloud edition's for the self-hosted package (its name begins the Cloud one's). */
const card = (packageName = PACKAGE_NAME) =>
	session.page.locator('[data-test-id="community-package-card"]', { hasText: new RegExp(`${packageName}(?!${CLOUD_PACKAGE_NAME.slice(PACKAGE_NAME.length)})`) });

async function openCommunityNodes(): Promise<void> {
	await session.page.goto(`${session.stack.n8n.url}/settings/community-nodes`);
	await session.page.getByText('Community nodes').first().waitFor();
}

/** Settings → Community Nodes → Install: the package's name typed, the risks accepted, Install; its card appears. */
async function installFromSettings(packageName: string): Promise<void> {
	const { page } = session;
	await openCommunityNodes();
	await page.getByRole('button', { name: 'Install a community node' }).first().click();
	const modal = page.locator('[data-test-id="communityPackageInstall-modal"]');
	await modal.locator('input').first().fill(packageName);
	await modal.locator('[data-test-id="user-agreement-checkbox"]').click();
	await modal.locator('[data-test-id="install-community-package-button"]').click();
	await card(packageName).waitFor({ timeout: 90_000 });
}

/** Opens the workflow in the editor, runs its Send SMS node from the node's panel; answers the message ID shown. */
async function sendFromEditor(workflowId: string): Promise<string> {
	const { page, stack } = session;
	await page.goto(`${stack.n8n.url}/workflow/${workflowId}`);
	await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send SMS' }).first().dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	return (await output.getByText(/^msg_\w+$/).first().innerText({ timeout: 30_000 })).trim();
}

test(`Install: typing ${PACKAGE_NAME} in Settings → Community Nodes installs version N from the registry, with both nodes`, async () => {
	expect(await registry.versions()).toEqual({ versions: [N], latest: N });
	expect(await installed()).toEqual([]);
	expect(await loadedTypes()).toEqual([]);
	await installFromSettings(PACKAGE_NAME);
	await card().getByText(`v${N}`).waitFor();
	await card().getByText('SVC Messaging Trigger').waitFor();
	await screenshot(session, 'community-packages-installed');

	const [pkg] = await installed();
	expect(pkg).toMatchObject({ packageName: PACKAGE_NAME, installedVersion: N, failedLoading: false });
	expect(pkg.installedNodes.map((n) => n.type).sort()).toEqual([NODE_TYPE, TRIGGER_TYPE]);
	// Both nodes, and the SVC Messaging node's AI-tool variant n8n derives from it.
	expect((await loadedTypes()).sort()).toEqual([NODE_TYPE, `${NODE_TYPE}Tool`, TRIGGER_TYPE]);
	expect(existsSync(join(packageDir(), 'package.json'))).toBe(true);
});

test('the installed node sends one SMS from the editor, counted at the emulator', async () => {
	const { stack } = session;
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(smsWorkflow), active: false });
	const messageId = await sendFromEditor(created.data.id);
	const messages = await stack.emulator.client.messages();
	expect(messages.map((m: { messageId: string; phoneNumber: string }) => [m.messageId, m.phoneNumber])).toEqual([[messageId, PHONE]]);
});

test('Update: with N+1 published, the page offers the update; it is applied and the updated node sends', async () => {
	const { page, stack } = session;
	await registry.publish(N_PLUS_1);
	expect(await registry.versions()).toEqual({ versions: [N, N_PLUS_1], latest: N_PLUS_1 });
	await openCommunityNodes();
	await card().getByText(`v${N}`).waitFor();
	await screenshot(session, 'community-packages-update-offered');
	await card().getByRole('button', { name: 'Update' }).click();
	const confirm = page.locator('[data-test-id="communityPackageManageConfirm-modal"]');
	await confirm.getByText('Update node package').first().waitFor();
	await screenshot(session, 'community-packages-update-confirm');
	await confirm.getByRole('button', { name: 'Confirm update' }).click();
	await card().getByText(`v${N_PLUS_1}`).waitFor({ timeout: 90_000 });
	await screenshot(session, 'community-packages-updated');

	const [pkg] = await installed();
	expect(pkg).toMatchObject({ packageName: PACKAGE_NAME, installedVersion: N_PLUS_1, failedLoading: false });
	expect(pkg.updateAvailable).toBeUndefined();
	expect((await loadedTypes()).sort()).toEqual([NODE_TYPE, `${NODE_TYPE}Tool`, TRIGGER_TYPE]);
	const onDisk = JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8')) as { version: string };
	expect(onDisk.version).toBe(N_PLUS_1);

	const [workflow] = (await stack.n8n.rest<{ data: Array<{ id: string; name: string }> }>('GET', '/rest/workflows')).data.filter((w) => w.name === smsWorkflow.name);
	const execution = await stack.n8n.runManual(workflow.id);
	expect(execution.status).toBe('success');
	expect(await stack.emulator.client.messages()).toHaveLength(2);
});

test('Uninstall removes the package and both nodes', async () => {
	const { page } = session;
	await openCommunityNodes();
	await card().locator('[data-test-id="action-toggle"]').click();
	await page.getByText('Uninstall package').last().click();
	const confirm = page.locator('[data-test-id="communityPackageManageConfirm-modal"]');
	await confirm.getByRole('button', { name: 'Confirm uninstall' }).click();
	await card().waitFor({ state: 'detached', timeout: 60_000 });
	await screenshot(session, 'community-packages-uninstalled');

	expect(await installed()).toEqual([]);
	await waitFor('the nodes to be gone from the editor', async () => ((await loadedTypes()).length === 0 ? true : undefined), 10_000, 200);
	expect(existsSync(packageDir())).toBe(false);
});

test('the n8n Cloud edition: its tarball published, typed in Settings → Community Nodes, installs with its nodes; its node sends one SMS from the editor', async () => {
	const { stack } = session;
	const cloud = cloudEdition();
	await registry.publishFolder(CLOUD_DIR);
	expect(await installed()).toEqual([]);
	await installFromSettings(cloud.packageName);
	await card(cloud.packageName).getByText(`v${cloud.manifest.version}`).waitFor();
	await card(cloud.packageName).getByText('SVC Messaging Cloud Trigger').waitFor();
	await screenshot(session, 'community-packages-cloud-installed');

	const [pkg, ...others] = await installed();
	expect(others).toEqual([]);
	expect(pkg).toMatchObject({ packageName: cloud.packageName, installedVersion: cloud.manifest.version, failedLoading: false });
	expect(pkg.installedNodes.map((n) => n.type).sort()).toEqual([cloud.nodeType, cloud.triggerType]);
	expect(await loadedTypes(cloud.packageName)).toEqual([cloud.nodeType, `${cloud.nodeType}Tool`, cloud.triggerType]);
	// No dependency: n8n's npm install put nothing beside the tarball's files.
	expect(existsSync(join(stack.n8n.userFolder, '.n8n', 'nodes', 'node_modules', cloud.packageName, 'node_modules'))).toBe(false);

	// The Cloud credential type exists only now: created as the editor saves one.
	const key = CLOUD_CREDENTIALS.starter;
	const credential = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/credentials', {
		name: key.name,
		type: cloud.apiKeyCredential,
		data: { baseUrl: stack.emulator.url, apiKey: key.apiKey, plan: 'starter' },
	});
	const phone = '+255712345678';
	const workflow = smsWorkflowOf('Cloud edition installed from the registry', 'cloud', cloud.nodeType, { [cloud.apiKeyCredential]: { id: credential.data.id, name: key.name } }, phone);
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...workflow, active: false });
	const before = await stack.emulator.client.messages();
	const messageId = await sendFromEditor(created.data.id);
	const after = await stack.emulator.client.messages();
	expect(after.slice(before.length).map((m: { messageId: string; phoneNumber: string }) => [m.messageId, m.phoneNumber])).toEqual([[messageId, phone]]);
});
