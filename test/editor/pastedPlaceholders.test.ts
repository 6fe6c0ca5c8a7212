/**
 * Item 1 of the fifth audit, as a user does it: the Message of SMS → Send Bulk is PASTED (not
 * typed) as `Hello {{name}}, your order {{order}} has shipped`. n8n turns pasted text holding
 * {{ }} into an expression, which would fill the placeholders itself; the node must refuse it
 * before any request, saying how to keep them. Checked at the emulator: 0 messages. The same for
 * Chat Template → Create's Body pasted as `Hi {{1}}, your order {{2}} has shipped.` (0 templates
 * posted). Runs in n8n 2.41.1 (`npm run test:editor`) and 1.123.81 (`npm run test:editor:n8n1`).
 */
import { triggerThenSvcNode, type WorkflowJson } from '../e2e/harness';
import { editorForEachFile, openWorkflow, screenshot, type EditorSession } from './editorSession';

const PHONE = '+254712345678';
const PASTED = 'Hello {{name}}, your order {{order}} has shipped';

const bulkWorkflow = triggerThenSvcNode(
	'Pasted placeholders',
	{ name: 'Orders', items: [{ phone: PHONE, name: 'Amina', order: 'A-12' }] },
	{
		id: 'paste-bulk',
		name: 'Send Bulk',
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
);

const PASTED_BODY = 'Hi {{1}}, your order {{2}} has shipped.';

const templateWorkflow = triggerThenSvcNode(
	'Pasted template body',
	{ name: 'Start' },
	{ id: 'paste-template', name: 'Create Template', parameters: { resource: 'chatTemplate', operation: 'create', templateName: 'order_shipped', bodyText: '' } },
);

let session: EditorSession;

/** Opens the workflow's node, pastes `text` into the field `parameter` as a user would (clipboard, Ctrl+V). */
async function pasteInto(workflow: WorkflowJson, nodeName: string, parameter: string, text: string): Promise<void> {
	const { page, stack } = session;
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(workflow), active: false });
	await openWorkflow(session, created.data.id);
	await page.locator('[data-test-id="canvas-node"]', { hasText: nodeName }).first().dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	const field = page.locator(`[data-test-id="parameter-input-${parameter}"]`).first();
	await field.locator('textarea, input, [contenteditable="true"]').first().click();
	type Clipboard = { navigator: { clipboard: { writeText(text: string): Promise<void> } } };
	await page.evaluate(async (pasted) => await (globalThis as unknown as Clipboard).navigator.clipboard.writeText(pasted), text);
	await page.keyboard.press('Control+V');
}

editorForEachFile('pasted-placeholders-last', (opened) => (session = opened), async () => {
	await session.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
});

test('Send Bulk: a Message pasted with {{name}} becomes an expression in n8n, and the node refuses it before sending', async () => {
	const { page, stack } = session;
	// The suite's emulator is shared with the other editor files: count what this test adds.
	const before = (await stack.emulator.client.messages()).length;
	// Paste, as a user copying the field's own example would.
	await pasteInto(bulkWorkflow, 'Send Bulk', 'message', PASTED);
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

test('Chat Template → Create: a Body pasted with {{1}}, {{2}} becomes an expression in n8n, and the node refuses it before creating', async () => {
	const { page, stack } = session;
	await stack.emulator.client.clearRequests();
	await pasteInto(templateWorkflow, 'Create Template', 'bodyText', PASTED_BODY);
	// n8n evaluates {{1}} and {{2}} to 1 and 2: the preview reads "Hi 1, your order 2 …".
	await page.getByText(/Hi 1, your order 2 has shipped/).first().waitFor();
	await screenshot(session, 'pasted-template-body-form');

	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	await output.getByText(/"Body" is an expression, so n8n would evaluate \{\{1\}\}, \{\{2\}\} itself/).first().waitFor({ timeout: 30_000 });
	await screenshot(session, 'pasted-template-body-refused');
	const posted = (await stack.emulator.client.requests()).filter((r) => r.method === 'POST' && r.path === '/api/chat/templates');
	expect(posted).toEqual([]);
});
