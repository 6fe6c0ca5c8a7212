/**
 * Node version 2 in the editor (headless Chromium against a real n8n 2.41.1; 1.123.81 with
 * N8N_E2E_TARGET=1): the forms node version 2 changes, as a new node shows them, with a screenshot
 * of each (docs/images/v2-*.png with the default n8n); the credential's notices and hints; the output schemas
 * and the documentation link n8n serves for the package.
 */
import { SEED_KEYS } from '../emulator/seed';
import { CREDENTIAL_NAMES, http } from '../e2e/harness';
import { closeForm, docsPicture, editorForEachFile, openForm, useCredential, visibleLabels, type EditorSession } from './editorSession';

const PACKAGE = 'n8n-nodes-svc-messaging';
const DOCUMENTATION_URL = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';

let session: EditorSession;

editorForEachFile('version2-last-test', (opened) => (session = opened), async () => {
	// The approved template otp_code, which Send Template's picker lists.
	await session.stack.emulator.client.prepareOtpFallback(SEED_KEYS.starter, []);
});

const inputValue = async (parameter: string) =>
	await session.page.locator(`[data-test-id="parameter-input-${parameter}"] input`).first().inputValue();

/** Opens a resource locator's list and waits for an entry. */
async function pickerShows(parameter: string, entry: string) {
	const { page } = session;
	await page.locator(`[data-test-id="parameter-input-${parameter}"] [data-test-id="rlc-input"]`).first().click();
	await page.getByText(new RegExp(`^${entry}( \\(|$)`)).first().waitFor();
}

describe('node version 2 forms', () => {
	test('Campaign → Create: one campaign for all items, the sender ID picker with no switch, Scheduled Time shown', async () => {
		const { page } = session;
		await openForm(session, 'SVC Messaging', 'Create a campaign');
		const labels = await visibleLabels(page);
		expect(labels).toEqual(expect.arrayContaining(['Sender ID', 'Recipients', 'Phone Number', 'Scheduled Time']));
		expect(labels).not.toContain('Pick Sender ID From Account List');
		expect(labels).not.toContain('Phone Numbers');
		expect(await inputValue('recipientsSource')).toBe('One Number per Input Item (One Campaign for All Items)');
		// Both credentials: the account login for the campaign, the API key for the sender ID list (the form says so).
		expect(await page.locator('[data-test-id="node-credentials-select"]').count()).toBe(2);
		await page.locator('[data-test-id="node-parameters"]').getByText(/The SVC Messaging API credential only lists the sender IDs below/).first().waitFor();
		await useCredential(page, CREDENTIAL_NAMES.starter);
		// The credential list closes with an animation; the picture is of the form.
		await page.waitForTimeout(800);
		await docsPicture(session, 'v2-campaign-create');
		await pickerShows('senderId', 'SVCTEST');
		await closeForm(session);
	});

	test('Campaign → Update: the sender ID picker with no switch', async () => {
		const { page } = session;
		await openForm(session, 'SVC Messaging', 'Update a campaign');
		const labels = await visibleLabels(page);
		expect(labels).toContain('Sender ID');
		expect(labels).not.toContain('Pick Sender ID From Account List');
		await page.locator('[data-test-id="node-parameters"]').getByText(/The SVC Messaging API credential only lists the sender IDs below/).first().waitFor();
		await page.locator('[data-test-id="parameter-input-senderId"] [data-test-id="rlc-input"]').first().waitFor();
		// The form's Docs link: our http documentationUrl as it is (a codex link would get ?utm_… after its #anchor).
		expect(await page.locator('[data-test-id="ndv"] a', { hasText: 'Docs' }).first().getAttribute('href')).toBe(DOCUMENTATION_URL);
		await docsPicture(session, 'v2-campaign-update');
		await closeForm(session);
	});

	test('Chat Message: Send Template is the default operation; its picker says why it may be empty and what to do', async () => {
		const { page } = session;
		await openForm(session, 'SVC Messaging', 'Send an SMS');
		await page.locator('[data-test-id="parameter-input-resource"]').first().click();
		await page.getByText('Chat Message', { exact: true }).last().click();
		// The operation a node gets when Chat Message is chosen: version 2's default.
		for (let i = 0; i < 50 && (await inputValue('operation')) !== 'Send Template'; i++) await page.waitForTimeout(200);
		expect(await inputValue('operation')).toBe('Send Template');
		const labels = await visibleLabels(page);
		expect(labels).toEqual(expect.arrayContaining(['Phone Number', 'Template', 'Template Language']));
		expect(labels).not.toContain('Message Type');
		await page.getByText(/Only APPROVED templates are listed\. An empty list: create one with Chat Template → Create/).first().waitFor();
		await useCredential(page, CREDENTIAL_NAMES.starter);
		// The credential list closes with an animation; the picture is of the form.
		await page.waitForTimeout(800);
		await docsPicture(session, 'v2-chat-send-template');
		await pickerShows('template', 'otp_code');
		await closeForm(session);
	});

	test('Chat Message → Send: Message Type no longer offers Template', async () => {
		const { page } = session;
		await openForm(session, 'SVC Messaging', 'Send a chat message');
		expect(await inputValue('phoneNumber').catch(() => '')).toBe('');
		expect(await page.locator('[data-test-id="parameter-input-phoneNumber"] input').first().getAttribute('placeholder')).toBe('e.g. +254712345678');
		await page.locator('[data-test-id="parameter-input-messageType"]').first().click();
		await page.getByText('Video', { exact: true }).last().waitFor();
		const options = await page.locator('.el-select-dropdown__item:visible').allInnerTexts();
		expect(options.map((o) => o.split('\n')[0].trim())).toEqual(['Document', 'Image', 'Text', 'Video']);
		await page.keyboard.press('Escape');
		// The list closes with an animation; the picture is of the form.
		await page.locator('.el-select-dropdown__item:visible').first().waitFor({ state: 'hidden' }).catch(() => undefined);
		await page.waitForTimeout(800);
		await docsPicture(session, 'v2-chat-send');
		await closeForm(session);
	});
});

describe('credential form (not versioned: notices and hints added)', () => {
	test('a saved sandbox key still gets a notice; Plan and Base URL say where to find them', async () => {
		const { page, stack } = session;
		const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/credentials', {
			name: 'Sandbox key',
			type: 'svcMessagingApi',
			data: { baseUrl: stack.emulator.url, apiKey: 'svc_test_starter_0001', plan: 'starter' },
		});
		await page.goto(`${stack.n8n.url}/home/credentials/${created.data.id}`);
		await page.getByText(/The saved API key is hidden here\. A key starting with svc_test_ is a sandbox key/).first().waitFor({ timeout: 30_000 });
		await page.getByText(/Pick the plan the SVC Messaging dashboard shows for the account/).first().waitFor();
		await page.getByText(/The service's API address from its developer documentation or the dashboard/).first().waitFor();
		await docsPicture(session, 'v2-credential-saved-sandbox-key');
	});
});

describe('what n8n serves for the package', () => {
	test('the output schemas, where the editor asks for them', async () => {
		const base = `${session.stack.n8n.url}/schemas`;
		for (const operation of ['send', 'sendBulk', 'sendAndWaitForDelivery', 'getMessage']) {
			const schema = await http<{ type: string; properties: Record<string, unknown> }>('GET', `${base}/${PACKAGE}.svcMessaging/2.0.0/sms/${operation}.json`);
			expect([operation, schema.status, schema.body.type]).toEqual([operation, 200, 'object']);
			expect(Object.keys(schema.body.properties)).toEqual(expect.arrayContaining(['messageId', 'phoneNumber', 'status']));
		}
		const trigger = await http<{ properties: Record<string, unknown> }>('GET', `${base}/${PACKAGE}.svcMessagingTrigger/1.0.0.json`);
		expect(trigger.status).toBe(200);
		expect(Object.keys(trigger.body.properties)).toEqual(expect.arrayContaining(['event', 'messageId', 'status', 'reasonCode']));
	});

	test("both nodes' documentation link is an http URL, which the editor opens as it is (no ?utm_… after the #anchor)", async () => {
		// Filtered in the page: the list of every node type is large.
		const ours = await session.page.evaluate(async (prefix) => {
			const types = (await (await fetch('/types/nodes.json')).json()) as Array<{ name: string; documentationUrl?: string }>;
			return types.filter((t) => t.name.startsWith(prefix)).map(({ name, documentationUrl }) => ({ name, documentationUrl }));
		}, `${PACKAGE}.`);
		expect(ours.length).toBeGreaterThanOrEqual(2);
		for (const type of ours) expect([type.name, type.documentationUrl]).toEqual([type.name, DOCUMENTATION_URL]);
	});
});
