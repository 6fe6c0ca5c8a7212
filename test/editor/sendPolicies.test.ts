/**
 * The send policies as a new user meets them in the editor (headless Chromium against a real n8n
 * 2.41.1; 1.123.81 with N8N_E2E_TARGET=1) and the emulator: a re-run whose items were all sent
 * says so under the output; Sending Hours shows its fields as soon as it is added, Skip says how
 * many it skipped; the API key credential's Test fails on a Redis that is not there.
 */
import { triggerThenSvcNode } from '../e2e/harness';
import { addFromNodesPanel, editorForEachFile, openProbe, openWorkflow, screenshot, visibleLabels, type EditorSession } from './editorSession';

let session: EditorSession;
editorForEachFile('send-policies-last', (opened) => (session = opened));

const run = Date.now().toString(36);
const PHONES = ['+254712346601', '+254712346602'];
const sentTo = async (phones: string[]) => (await session.stack.emulator.client.messages()).filter((m: { phoneNumber: string }) => phones.includes(m.phoneNumber)).length;

/** Creates the workflow, opens its SVC node, and answers the page's "Execute step" and output panel. */
async function openNode(name: string, parameters: Record<string, unknown>, items: Array<Record<string, unknown>>) {
	const { page, stack } = session;
	const workflow = triggerThenSvcNode(name, { name: 'Orders', items }, { id: `policies-${name.replace(/\W/g, '')}`, name: 'Send SMS', parameters });
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/workflows', { ...structuredClone(workflow), active: false });
	// Inside the editor already loaded (its router), not a page load per workflow.
	await openWorkflow(session, created.data.id);
	await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send SMS' }).first().dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	return { execute: async () => await page.locator('[data-test-id="node-execute-button"]').first().click(), output: page.locator('[data-test-id="output-panel"]') };
}

const sms = (options: Record<string, unknown>) => ({
	resource: 'sms',
	operation: 'send',
	phoneNumber: '={{ $json.phone }}',
	message: 'Your order shipped',
	senderId: { __rl: true, mode: 'list', value: 'SVCTEST', cachedResultName: 'SVCTEST' },
	options,
});

test('a re-run whose items were all sent (Idempotency Key) says "nothing was sent now" under the output, and shows alreadySent', async () => {
	const items = PHONES.map((phone, n) => ({ phone, orderId: `order-${run}-${n}` }));
	const { execute, output } = await openNode('Keyed send', sms({ idempotencyKey: '={{ $json.orderId }}' }), items);
	await execute();
	await output.getByText('messageId').first().waitFor({ timeout: 30_000 });
	expect(await sentTo(PHONES)).toBe(2);
	await execute();
	await session.page.getByText('2 messages were already sent (alreadySent: true in the output): nothing was sent now.').first().waitFor({ timeout: 30_000 });
	await output.getByText('alreadySent').first().waitFor();
	await screenshot(session, 'policies-already-sent');
	expect(await sentTo(PHONES)).toBe(2);
});

test('Sending Hours: adding it shows its fields at once; Skip outside them says how many were skipped', async () => {
	const { page } = session;
	await openProbe(session);
	await addFromNodesPanel(session, 'SVC Messaging', 'Send an SMS');
	// Options → "Add option" (n8n 2: the button under an open collection, or the header's "+"; n8n 1: the
	// collection's "Add Option" select), then Sending Hours.
	const add = page.locator(
		'[data-test-id="collection-parameter-add-dropdown"] button, [data-test-id="collection-parameter-add-header"] button, [data-test-id="collection-parameter-add"], .collection-parameter .param-options input',
	);
	await add.first().click();
	await page.getByText('Sending Hours', { exact: true }).last().click();
	// One click: the hours' fields are there, with no "Add Sending Hours" left to press.
	await page.locator('[data-test-id="node-parameters"]').getByText('Allowed From').first().waitFor();
	expect(await visibleLabels(page)).toEqual(expect.arrayContaining(['Allowed Days', 'Allowed From', 'Allowed Until', 'Outside Sending Hours', 'Time Zone']));
	await screenshot(session, 'policies-sending-hours-added');
	await page.keyboard.press('Escape');

	// Hours that are closed now in Nairobi (UTC+3): from two hours ahead, for one hour.
	const nairobiHour = (new Date().getUTCHours() + 3) % 24;
	const at = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
	const phones = ['+254712346611', '+254712346612'];
	const hours = { sendingHours: { hours: { from: at(nairobiHour + 2), until: at(nairobiHour + 3), outside: 'skip' } } };
	const { execute, output } = await openNode('Skipped send', sms(hours), phones.map((phone) => ({ phone })));
	await execute();
	await page.getByText('2 messages were not sent: outside Sending Hours (skipped: true in the output, with the next opening).').first().waitFor({ timeout: 30_000 });
	await output.getByText('skipped').first().waitFor();
	await screenshot(session, 'policies-skipped');
	expect(await sentTo(phones)).toBe(0);
});

test("the API key credential's Test with Use Redis on a closed port fails, saying Redis does not answer", async () => {
	const { page, stack } = session;
	const data = { baseUrl: stack.emulator.url, apiKey: 'svc_test_starter_0001', plan: 'starter', sharedRateLimit: true, redisHost: '127.0.0.1', redisPort: 1 };
	const created = await stack.n8n.rest<{ data: { id: string } }>('POST', '/rest/credentials', { name: `Redis closed ${run}`, type: 'svcMessagingApi', data });
	await page.goto(`${stack.n8n.url}/home/credentials/${created.data.id}`);
	await page.getByText(/Couldn.t connect with these settings/i).first().waitFor({ timeout: 30_000 });
	const details = page.getByText('More details').first();
	if (await details.isVisible()) await details.click();
	await page.getByText(/The API key works, but Redis does not: Could not connect to Redis at 127\.0\.0\.1:1/).first().waitFor();
	// The switch is named for what it serves.
	await page.getByText('Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)').first().waitFor();
	await screenshot(session, 'policies-credential-redis-closed');
});
