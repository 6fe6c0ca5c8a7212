/**
 * Item 1 of the fifth audit, as a user does it: the Message of SMS → Send Bulk is PASTED (not
 * typed) as `Hello {{name}}, your order {{order}} has shipped`. n8n turns pasted text holding
 * {{ }} into an expression, which would fill the placeholders itself; the node must refuse it
 * before any request, saying how to keep them. Checked at the emulator: 0 messages.
 */
import { CREDENTIAL_IDS, CREDENTIAL_NAMES, type WorkflowJson } from '../e2e/harness';
import { editorForEachFile, screenshot, type EditorSession } from './editorSession';

const PHONE = '+254712345678';
const PASTED = 'Hello {{name}}, your order {{order}} has shipped';

const bulkWorkflow: WorkflowJson = {
	name: 'Pasted placeholders',
	nodes: [
		{ id: 'paste-trigger', name: 'Orders', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'paste-bulk',
			name: 'Send Bulk',
			type: 'n8n-nodes-svc-messaging.svcMessaging',
			typeVersion: 2,
			position: [280, 0],
			credentials: { svcMessagingApi: { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter } },
			parameters: {
				resource: 'sms',
				operation: 'sendBulk',
				recipientsSource: 'items',
				phoneNumber: '={{ $json.phone }}',
				variablesSource: 'allFields',
				message: '',
				senderId: { __rl: true, mode: 'list', value: '' },
				options: {},
			},
		},
	],
	connections: { Orders: { main: [[{ node: 'Send Bulk', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	pinData: { Orders: [{ json: { phone: PHONE, name: 'Amina', order: 'A-12' } }] },
};

let session: EditorSession;

editorForEachFile('pasted-placeholders-last', (opened) => (session = opened), async () => {
	await session.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
});

test('Send Bulk: a Message pasted with {{name}} becomes an expression in n8n, and the node refuses it before sending', async () => {
	const { page, stack } = session;
	// The suite's emulator is shared with the other editor files: count what this test adds.
	const before = (await stack.emulator.client.messages()).length;
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(bulkWorkflow), active: false });
	await page.goto(`${stack.n8n.url}/workflow/${created.data.id}`);
	await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send Bulk' }).first().dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();

	// Paste, as a user copying the field's own example would.
	const field = page.locator('[data-test-id="parameter-input-message"]').first();
	await field.locator('textarea, input, [contenteditable="true"]').first().click();
	type Clipboard = { navigator: { clipboard: { writeText(text: string): Promise<void> } } };
	await page.evaluate(async (text) => await (globalThis as unknown as Clipboard).navigator.clipboard.writeText(text), PASTED);
	await page.keyboard.press('Control+V');
	// n8n made it an expression: its result preview shows the placeholders evaluated away
	// ("Hello [undefined], your order [undefined] …" while focused; "Hello , your order  …" after).
	await page.getByText('[undefined]', { exact: true }).first().waitFor();
	await screenshot(session, 'pasted-placeholders-form');

	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	await output.getByText(/"Message" is an expression, so n8n would evaluate \{\{name\}\}, \{\{order\}\} itself/).first().waitFor({ timeout: 30_000 });
	await screenshot(session, 'pasted-placeholders-refused');
	expect(await stack.emulator.client.messages()).toHaveLength(before);
});
