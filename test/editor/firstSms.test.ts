/**
 * README's first screen, as a newcomer does it: a workflow whose item has a `phone` field, an
 * SVC Messaging node (SMS → Send) with Phone Number `{{ $json.phone }}` and the SVC Messaging API
 * credential, then "Test step" (n8n 1) / "Execute step" (n8n 2) and the output. In headless Chromium
 * against a real n8n and the emulator; the SMS is checked at the emulator too. The node is version 2,
 * as the nodes panel adds it. With the default n8n (2.41.1) the two screenshots README shows are
 * written to docs/images/ (committed); otherwise to .editor-screenshots/.
 */
import { copyFileSync, mkdirSync } from 'fs';
import { join } from 'path';

import { SEED_KEYS } from '../emulator/seed';
import { CREDENTIAL_NAMES, DEFAULT_TARGET, http, ROOT, triggerThenSvcNode } from '../e2e/harness';
import { editorForEachFile, openWorkflow, screenshot, SCREENSHOTS, type EditorSession } from './editorSession';

const PHONE = '+254712345678';
const DOCS_IMAGES = join(ROOT, 'docs', 'images');

/** What README's steps build: an item with a phone number, then SMS → Send. */
// What the nodes panel adds today: version 2; the item a sign-up form (or webhook, or sheet row) would bring.
const otpWorkflow = triggerThenSvcNode(
	'Send an OTP',
	{ name: 'New sign-up', items: [{ phone: PHONE, code: '482913' }] },
	{
		id: 'otp-send',
		name: 'Send OTP',
		parameters: {
			resource: 'sms',
			operation: 'send',
			phoneNumber: '={{ $json.phone }}',
			message: '=Your verification code is {{ $json.code }}. It expires in 10 minutes.',
			senderId: { __rl: true, mode: 'list', value: 'SVCTEST', cachedResultName: 'SVCTEST' },
			options: {},
		},
	},
);

let session: EditorSession;

editorForEachFile('first-sms-last', (opened) => (session = opened), async () => {
	await session.page.setViewportSize({ width: 1400, height: 860 });
});

/** Saves a screenshot; with the default n8n also as README's picture in docs/images/. */
async function picture(name: string): Promise<void> {
	await screenshot(session, name);
	if (session.target !== DEFAULT_TARGET) return;
	mkdirSync(DOCS_IMAGES, { recursive: true });
	copyFileSync(join(SCREENSHOTS, `n8n${session.target}`, `${name}.png`), join(DOCS_IMAGES, `${name}.png`));
}

test('README: SMS → Send with {{ $json.phone }} sends the SMS and shows its result', async () => {
	const { page, stack } = session;
	// Through the editor's own REST API: the public API does not take pinned data.
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(otpWorkflow), active: false });
	const id = created.data.id;
	await openWorkflow(session, id);
	await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send OTP' }).first().dblclick();
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.waitFor();

	// The incoming item (the trigger's pinned sign-up) in the input panel.
	await page.locator('[data-test-id="ndv-input-panel"]').getByText(PHONE).first().waitFor();

	// The filled form: the operation, the credential, the expressions and what they resolve to.
	expect(await page.locator('[data-test-id="parameter-input-operation"] input').first().inputValue()).toBe('Send');
	expect(await page.locator('[data-test-id="node-credentials-select"] input').first().inputValue()).toBe(CREDENTIAL_NAMES.starter);
	await page.locator('[data-test-id="parameter-input-phoneNumber"]').getByText('{{ $json.phone }}').first().waitFor();
	const parameters = page.locator('[data-test-id="node-parameters"]');
	await parameters.getByText(PHONE, { exact: true }).first().waitFor();
	await parameters.getByText(/^Your\s+verification\s+code\s+is\s+482913\./).first().waitFor();
	await picture('send-sms-form');

	// Run it and read the output.
	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	for (const field of ['messageId', 'status', 'segments', 'creditsRemaining']) await output.getByText(field).first().waitFor({ timeout: 30_000 });
	const messageId = (await output.getByText(/^msg_\w+$/).first().innerText()).trim();
	// Every field at once: the JSON view.
	await output.getByText('JSON', { exact: true }).first().click();
	await output.getByText(`"${messageId}"`).first().waitFor();
	for (const value of ['"PENDING"', `"${PHONE}"`, '"SVCTEST"']) await output.getByText(value, { exact: true }).first().waitFor();
	await picture('send-sms-output');

	// The emulator received exactly that SMS.
	const sent = await http<{ data: { phoneNumber: string; message?: string } }>('GET', `${stack.emulator.url}/api/sms/messages/${messageId}`, undefined, {
		'x-api-key': SEED_KEYS.starter,
	});
	expect(sent.status).toBe(200);
	expect(sent.body.data.phoneNumber).toBe(PHONE);
});
