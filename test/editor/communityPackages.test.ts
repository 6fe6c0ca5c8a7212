/**
 * The way nearly every user installs the package: Settings → Community Nodes → Install, typing its
 * name, in headless Chromium against a real n8n whose npm installs from a local npm registry
 * (verdaccio, test/e2e/harness/registry.ts) where this checkout's package is published as version
 * N. Both nodes load and one SMS is sent with the installed node (counted at the emulator). Then
 * N+1 is published; the Update that n8n's page offers is applied, and the updated node sends.
 * Uninstall removes the package and its nodes.
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
import { startRegistry, type LocalRegistry } from '../e2e/harness/registry';
import { waitFor } from '../helpers/waitFor';
import { openEditorOnOwnN8n, screenshot, type EditorSession } from './editorSession';

const PHONE = '+254712345678';
const N = '0.1.0';
const N_PLUS_1 = '0.1.1';
const CUSTOM_REGISTRY = 'feat:communityNodes:customRegistry';

const smsWorkflow: WorkflowJson = {
	name: 'Installed from the registry',
	nodes: [
		{ id: 'reg-trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'reg-send',
			name: 'Send SMS',
			type: NODE_TYPE,
			typeVersion: 2,
			position: [280, 0],
			credentials: { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } },
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
	pinData: { Start: [{ json: { phone: PHONE } }] },
};

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	updateAvailable?: string;
	failedLoading?: boolean;
	installedNodes: Array<{ name: string; type: string }>;
}

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

const installed = async () => (await session.stack.n8n.rest<{ data: InstalledPackage[] }>('GET', '/rest/community-packages')).data;
/** The node types the editor loads (what the nodes panel offers). */
async function loadedTypes(): Promise<string[]> {
	const types = await session.stack.n8n.rest<Array<{ name: string }>>('GET', '/types/nodes.json');
	return types.map((t) => t.name).filter((name) => name.startsWith(`${PACKAGE_NAME}.`));
}
const packageDir = () => join(session.stack.n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
const card = () => session.page.locator('[data-test-id="community-package-card"]', { hasText: PACKAGE_NAME });

async function openCommunityNodes(): Promise<void> {
	await session.page.goto(`${session.stack.n8n.url}/settings/community-nodes`);
	await session.page.getByText('Community nodes').first().waitFor();
}

test(`Install: typing ${PACKAGE_NAME} in Settings → Community Nodes installs version N from the registry, with both nodes`, async () => {
	const { page } = session;
	expect(await registry.versions()).toEqual({ versions: [N], latest: N });
	expect(await installed()).toEqual([]);
	expect(await loadedTypes()).toEqual([]);
	await openCommunityNodes();
	await page.getByRole('button', { name: 'Install a community node' }).first().click();
	const modal = page.locator('[data-test-id="communityPackageInstall-modal"]');
	await modal.locator('input').first().fill(PACKAGE_NAME);
	await modal.locator('[data-test-id="user-agreement-checkbox"]').click();
	await modal.locator('[data-test-id="install-community-package-button"]').click();
	await card().waitFor({ timeout: 90_000 });
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
	const { page, stack } = session;
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(smsWorkflow), active: false });
	await page.goto(`${stack.n8n.url}/workflow/${created.data.id}`);
	await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send SMS' }).first().dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	const messageId = (await output.getByText(/^msg_\w+$/).first().innerText({ timeout: 30_000 })).trim();
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
