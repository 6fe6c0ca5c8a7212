/**
 * A node with two credentials in the editor (headless Chromium against a real n8n 1.123.81; 2.41.1
 * with N8N_E2E_TARGET=2): Campaign → Create shows the API key credential (sender ID list) and the
 * account login (the campaign itself). Each dropdown has its own label, and its "Create new
 * credential" opens a form of its own type. A picture of the account login's new-credential form
 * goes to .editor-screenshots/n8n<v>/credential-create-account-login.png.
 */
import type { Locator } from 'playwright-core';

import { addFromNodesPanel, editorForEachFile, openProbe, screenshot, type EditorSession } from './editorSession';

let session: EditorSession;

editorForEachFile('credential-dialogs-last-test', (opened) => (session = opened));

const credentialRows = () => session.page.locator('[data-test-id="node-parameters"] [data-test-id="credentials-label"], [data-test-id="ndv"] [data-test-id="credentials-label"]');

/** The fields of the credential form the dropdown's "Create new credential" opens; closes it again. */
async function createNewFrom(row: Locator, name: string): Promise<string[]> {
	const { page } = session;
	await row.locator('[data-test-id="node-credentials-select"]').first().click();
	await page.locator('[data-test-id="node-credentials-select-item-new"]:visible').first().click();
	const modal = page.locator('[data-test-id="editCredential-modal"]').first();
	await modal.waitFor();
	await modal.locator('[data-test-id="credential-connection-parameter"], [data-test-id^="parameter-input-"]').first().waitFor();
	await page.waitForTimeout(500);
	await screenshot(session, `credential-create-${name}`);
	const fields = await modal.locator('[data-test-id^="parameter-input-"]').evaluateAll((nodes) =>
		nodes.map((n) => (n.getAttribute('data-test-id') ?? '').replace('parameter-input-', '')),
	);
	// The dialog's ×: Escape would close the node's form behind it as well (n8n 2).
	const close = page.locator('.el-dialog__headerbtn:visible, [data-test-id="editCredential-modal"] [aria-label="Close"]:visible').first();
	if (await close.count()) await close.click();
	else await page.keyboard.press('Escape');
	// n8n asks whether to close a form with unsaved changes in some versions.
	const discard = page.getByRole('button', { name: /Close without saving|Leave without saving/i }).first();
	if (await discard.isVisible().catch(() => false)) await discard.click();
	await modal.waitFor({ state: 'hidden' });
	if (!(await page.locator('[data-test-id="ndv"]').first().isVisible())) {
		await page.locator('[data-test-id="canvas-node"]', { hasText: 'Create a campaign' }).first().dblclick();
		await page.locator('[data-test-id="node-parameters"]').waitFor();
	}
	return [...new Set(fields)];
}

/** The fields that tell the two credential types apart. */
const isCredentialField = (name: string) => ['apiKey', 'email', 'password'].includes(name);

test('Campaign → Create: each credential dropdown has its own label and creates its own type', async () => {
	await openProbe(session);
	await addFromNodesPanel(session, 'SVC Messaging', 'Create a campaign');
	const rows = credentialRows();
	expect(await rows.count()).toBe(2);
	const labels = (await rows.evaluateAll((nodes) => nodes.map((n) => (n.querySelector('label') ?? n).textContent ?? ''))).map((l) => l.replace(/\s*\*\s*$/, '').trim());
	await screenshot(session, 'credential-dropdowns');
	const apiKeyForm = await createNewFrom(rows.nth(0), 'api-key');
	const accountForm = await createNewFrom(rows.nth(1), 'account-login');
	// One comparison, so that a failure shows the labels and both forms together.
	expect({ labels, apiKeyForm: apiKeyForm.filter(isCredentialField), accountForm: accountForm.filter(isCredentialField) }).toEqual({
		labels: ['Credential for SVC Messaging API', 'Credential for SVC Messaging Account API'],
		apiKeyForm: expect.arrayContaining(['apiKey']),
		accountForm: expect.arrayContaining(['email', 'password']),
	});
	expect(apiKeyForm).not.toContain('email');
	expect(accountForm).not.toContain('apiKey');
});
