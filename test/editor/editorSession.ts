/**
 * The n8n editor in headless Chromium (Debian's `chromium`, driven by playwright-core), logged in,
 * against the package and the emulator set up as `npm run dev` does it — on free ports, in a fresh
 * temporary user folder.
 */
import { copyFileSync, mkdirSync } from 'fs';
import { join } from 'path';

import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

import { DEFAULT_TARGET, E2E_OWNER, ROOT, selectedTarget, startStack, type Stack, type Target, type WorkflowJson } from '../e2e/harness';
import { EDITOR_TIME_SCALE, sharedStack, type EditorStack } from './sharedStack';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, '.editor-screenshots');

/** A workflow with only a Manual Trigger: every form is opened from its "+" handle. */
const probeWorkflow: WorkflowJson = {
	name: 'Editor check',
	nodes: [{ id: 'probe-trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }],
	connections: {},
	settings: { executionOrder: 'v1' },
};

export interface ConsoleError {
	text: string;
	url: string;
}

export interface EditorSession<S extends EditorStack = EditorStack> {
	stack: S;
	browser: Browser;
	page: Page;
	consoleErrors: ConsoleError[];
	target: Target;
	close(): Promise<void>;
}

/** The editor on the suite's shared n8n (globalSetup.ts), as `npm run dev` sets it up. */
export async function openEditor(): Promise<EditorSession> {
	return openEditorOn(sharedStack() ?? (await startStack({ target: selectedTarget(), timeScale: EDITOR_TIME_SCALE })));
}

/** The editor on an n8n of its own: n8n's extra environment, or n8n without the package (installed from the editor). */
export async function openEditorOnOwnN8n(stackOptions: { env?: Record<string, string>; installPackage?: boolean }): Promise<EditorSession<Stack>> {
	return openEditorOn(await startStack({ target: selectedTarget(), timeScale: EDITOR_TIME_SCALE, ...stackOptions }));
}

/** Logs in to `stack`'s n8n in a new headless Chromium; close() stops the stack too (the shared one stays up). */
async function openEditorOn<S extends EditorStack>(stack: S): Promise<EditorSession<S>> {
	const target = selectedTarget();
	mkdirSync(join(SCREENSHOTS, `n8n${target}`), { recursive: true });
	let browser: Browser | undefined;
	try {
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
		});
		const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
		page.setDefaultTimeout(20_000);
		const consoleErrors: ConsoleError[] = [];
		page.on('console', (message: ConsoleMessage) => {
			if (message.type() === 'error') consoleErrors.push({ text: message.text(), url: message.location().url });
		});
		page.on('pageerror', (error) => consoleErrors.push({ text: `${error.name}: ${error.message}`, url: '' }));

		await page.goto(`${stack.n8n.url}/signin`);
		await page.locator('input[type=email], input[name=emailOrLdapLoginId]').first().fill(E2E_OWNER.email);
		await page.locator('input[type=password]').first().fill(E2E_OWNER.password);
		await page.locator('button[type=submit], [data-test-id="form-submit-button"]').first().click();
		await page.waitForURL(/\/(home|workflows|projects)/);
		const opened = browser;
		return {
			stack,
			browser: opened,
			page,
			consoleErrors,
			target,
			close: async () => {
				await opened.close();
				await stack.stop();
			},
		};
	} catch (error) {
		await browser?.close().catch(() => undefined);
		await stack.stop();
		throw error;
	}
}

/** Opens a new workflow holding only a Manual Trigger (n8n 2 autosaves what a form adds to a workflow). */
export async function openProbe(session: EditorSession): Promise<void> {
	const { page, stack } = session;
	const id = await stack.n8n.createWorkflow(structuredClone(probeWorkflow));
	await page.goto(`${stack.n8n.url}/workflow/${id}`);
	await page.locator('[data-test-id="canvas-handle-plus"]').first().waitFor();
}

/** Types into the nodes panel's search box (typing at the page right after it opens can be lost). */
export async function searchNodes(page: Page, text: string): Promise<void> {
	const search = page.getByPlaceholder(/Search nodes/i).first();
	await search.waitFor();
	await search.fill(text);
}

/** Nodes panel from the trigger's "+", search "SVC", the app, then one of its actions (or triggers). */
export async function addFromNodesPanel(session: EditorSession, app: string, item: string): Promise<void> {
	const { page } = session;
	await page.locator('[data-test-id="canvas-handle-plus"]').first().click();
	await searchNodes(page, 'SVC');
	await page.locator('[data-test-id="item-iterator-item"]', { hasText: app }).first().click();
	await page.locator('[data-test-id="item-iterator-item"]', { hasText: new RegExp(`^\\s*${escape(item)}\\s*$`) }).first().click();
	await page.locator('[data-test-id="ndv"]').waitFor();
	await page.locator('[data-test-id="node-parameters"]').waitFor();
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Selects a credential in the open form (n8n 1 and 2 preselect different ones of a type). */
export async function useCredential(page: Page, name: string): Promise<void> {
	await page.locator('[data-test-id="node-credentials-select"]').first().click();
	await page.getByText(name, { exact: true }).last().click();
	await page.locator('[data-test-id="node-credentials-select"] input').first().waitFor();
}

/** The labels of the parameters shown in the open node's form, top to bottom. */
export async function visibleLabels(page: Page): Promise<string[]> {
	const labels = await page.locator('[data-test-id="node-parameters"] [data-test-id="input-label"]').allInnerTexts();
	return labels.map((l) => l.split('\n')[0].replace(/\s*\*$/, '').trim()).filter(Boolean);
}

/**
 * The one editor a test file works in: opened before its tests (then `prepare` runs), handed to
 * `use`, and closed after them. After each test the page as it was (failed tests included) is
 * saved as .editor-screenshots/n8n<version>/<lastShot>.png.
 */
export function editorForEachFile(lastShot: string, use: (session: EditorSession) => void, prepare?: (session: EditorSession) => Promise<void>): void {
	let session: EditorSession | undefined;
	beforeAll(async () => {
		session = await openEditor();
		use(session);
		await prepare?.(session);
	}, 240_000);
	afterAll(async () => {
		await session?.close();
	}, 60_000);
	afterEach(async () => {
		if (session) await screenshot(session, lastShot).catch(() => undefined);
	});
}

export async function screenshot(session: EditorSession, name: string): Promise<void> {
	await session.page.screenshot({ path: join(SCREENSHOTS, `n8n${session.target}`, `${name}.png`) });
}

/** Saves a screenshot; with the default n8n (the README's pictures) also in docs/images/, which is committed. */
export async function docsPicture(session: EditorSession, name: string): Promise<void> {
	await screenshot(session, name);
	if (session.target !== DEFAULT_TARGET) return;
	const images = join(ROOT, 'docs', 'images');
	mkdirSync(images, { recursive: true });
	copyFileSync(join(SCREENSHOTS, `n8n${session.target}`, `${name}.png`), join(images, `${name}.png`));
}
