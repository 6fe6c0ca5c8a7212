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
	/** the probe workflow the page shows (openProbe), reused by openForm while it holds only its trigger */
	probeUrl?: string;
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

		// The first load fills the browser's cache with the editor's bundle: slow on a busy machine.
		await page.goto(`${stack.n8n.url}/signin`, { timeout: 90_000 });
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

/**
 * Opens a workflow (`new`: a new one) inside the editor already loaded, as its own links do (its
 * router: 1-3 s), leaving a workflow with unsaved changes without saving them; else (no editor
 * loaded, a form or dialog open, the route unchanged) by loading the page (6-25 s here). A
 * credential's page is loaded: the router did not open its dialog over another one.
 */
export async function openWorkflow(session: EditorSession, id: string): Promise<void> {
	const { page, stack } = session;
	const path = `/workflow/${id}`;
	// With a form or dialog open, n8n 1 changed the address but went on showing the old workflow.
	const quiet = page.url().startsWith(`${stack.n8n.url}/`) && (await page.locator('[data-test-id="ndv"]:visible, [role="dialog"]:visible').count()) === 0;
	if (quiet && (await routeTo(page, path))) return;
	await page.goto(`${stack.n8n.url}${path}`);
}

/**
 * The editor's router (Vue's app on #app) to `path`; true when the page left the route it showed
 * (`/workflow/new` becomes a new workflow's id in n8n 2). The caller waits for what it needs.
 */
async function routeTo(page: Page, path: string): Promise<boolean> {
	type Router = { push(to: string): Promise<unknown> };
	type Root = { document: { querySelector(s: string): { __vue_app__?: { config: { globalProperties: { $router?: Router } } } } | null } };
	const from = page.url();
	const pushed = await page
		.evaluate(async (target) => {
			const router = (globalThis as unknown as Root).document.querySelector('#app')?.__vue_app__?.config.globalProperties.$router;
			if (!router) return false;
			// A leave-without-saving question holds the push: it is answered below.
			await Promise.race([router.push(target).catch(() => undefined), new Promise((done) => setTimeout(done, 3_000))]);
			return true;
		}, path)
		.catch(() => false);
	if (!pushed) return false;
	const leave = page.getByRole('button', { name: /Leave without saving|Close without saving/i }).first();
	if (page.url() === from && (await leave.isVisible().catch(() => false))) {
		await leave.click();
		await page.waitForURL((url) => url.href !== from, { timeout: 10_000 }).catch(() => undefined);
	}
	return page.url() !== from;
}

/** Opens a new workflow holding only a Manual Trigger (n8n 2 autosaves what a form adds to a workflow). */
export async function openProbe(session: EditorSession): Promise<void> {
	const { page, stack } = session;
	const id = await stack.n8n.createWorkflow(structuredClone(probeWorkflow));
	session.probeUrl = `${stack.n8n.url}/workflow/${id}`;
	await openWorkflow(session, id);
	// A browser's first workflow page loads the canvas's code: slow on a busy machine.
	await page.locator('[data-test-id="canvas-handle-plus"]').first().waitFor({ timeout: 60_000 });
}

/**
 * A new node's form from the nodes panel, in the probe workflow: the one the page shows when it
 * holds only its trigger (closeForm leaves it so), else a new one (openProbe). Loading the editor
 * again for each form was most of its time (30 s of 36 s in one run on a busy machine, against
 * 5 s for the node panel and the form, which are what is tested).
 */
export async function openForm(session: EditorSession, app: string, item: string): Promise<void> {
	if (!(await showsEmptyProbe(session))) await openProbe(session);
	await addFromNodesPanel(session, app, item);
}

/** Closes the open form (and any list open in it) and deletes its node: the probe holds only its trigger again. */
export async function closeForm(session: EditorSession): Promise<void> {
	const { page } = session;
	const ndv = page.locator('[data-test-id="ndv"]');
	// Escape closes the form, or first a list open in it; with the focus left in a list's input it
	// does not: then the form's close button (n8n 2) or back arrow (n8n 1).
	const closeButton = page.locator('[data-test-id="ndv-close-button"]:visible, [data-test-id="back-to-canvas"]:visible').first();
	for (let i = 0; i < 3 && (await ndv.isVisible()); i++) {
		await page.keyboard.press('Escape');
		if (await ndv.waitFor({ state: 'hidden', timeout: 1_000 }).then(() => true, () => false)) break;
		if (await closeButton.isVisible()) await closeButton.click();
		await ndv.waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => undefined);
	}
	await ndv.waitFor({ state: 'hidden' });
	// The closed form's node is selected: Delete removes it (clicked first if it was not).
	const added = page.locator('[data-test-id="canvas-node"]', { hasNotText: probeWorkflow.nodes[0].name });
	for (let i = 0; i < 3 && (await added.count()) > 0; i++) {
		if (i > 0) await added.first().click();
		await page.keyboard.press('Delete');
		await added.first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
	}
	if ((await added.count()) > 0) throw new Error('closeForm: the form\'s node is still on the canvas after Delete');
}

/** The page shows the probe workflow with only its trigger, no form, dialog or list open. */
async function showsEmptyProbe(session: EditorSession): Promise<boolean> {
	const { page } = session;
	if (!session.probeUrl || page.url() !== session.probeUrl) return false;
	const open = page.locator('[data-test-id="ndv"]:visible, [role="dialog"]:visible');
	return (await page.locator('[data-test-id="canvas-node"]').count()) === 1 && (await open.count()) === 0;
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
