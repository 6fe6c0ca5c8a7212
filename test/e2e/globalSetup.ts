/**
 * Jest global setup of the end-to-end suite: ONE emulator process and ONE `n8n start` for every
 * test file (n8n takes 15-30 s to start). Test files reach them through ./context.ts, which reads
 * the environment variables set here (jest starts its workers after this ran).
 */
import { readdirSync } from 'fs';
import { join } from 'path';

import { installMode, packPackage, readWorkflow, ROOT, startStack, targetInfo, type Stack } from './harness';
import { selectedEdition } from './harness/edition';

declare global {
	// eslint-disable-next-line no-var
	var __SVC_E2E_STACK__: Stack | undefined;
}

export const E2E_TIME_SCALE = 0.1;

export default async function globalSetup(): Promise<void> {
	const info = targetInfo();
	const started = Date.now();
	const verbose = process.env.E2E_VERBOSE === '1';
	const mode = installMode();
	process.stdout.write(
		`\n[e2e] starting the emulator and n8n ${info.version} (package ${
			selectedEdition() === 'cloud'
				? 'the n8n Cloud edition, cloud/dist/package (E2E_EDITION=cloud)'
				: mode === 'pack'
					? 'from its npm pack tarball, installed as the Community Nodes UI does'
					: 'copied from dist/, dependencies linked'
		})...\n`,
	);
	// Imported as a user imports them (fixed ids, pinned sample input): editor.e2e.test.ts runs them.
	const workflows = ['test/e2e/workflows', 'examples'].flatMap((dir) =>
		readdirSync(join(ROOT, dir))
			.filter((f) => f.endsWith('.json'))
			.map((f) => readWorkflow(join(ROOT, dir, f))),
	);
	const stack = await startStack({
		timeScale: E2E_TIME_SCALE,
		workflows,
		verbose,
		log: verbose ? (line) => process.stdout.write(`${line}\n`) : undefined,
	});
	globalThis.__SVC_E2E_STACK__ = stack;
	process.env.E2E_N8N_URL = stack.n8n.url;
	process.env.E2E_N8N_API_KEY = stack.n8n.apiKey;
	process.env.E2E_N8N_COOKIE = stack.n8n.cookie;
	process.env.E2E_N8N_VERSION = info.version;
	// The package folder n8n loaded (package.e2e.test.ts checks it is what E2E_INSTALL installed).
	process.env.E2E_N8N_USER_FOLDER = stack.n8n.userFolder;
	process.env.E2E_EMULATOR_URL = stack.emulator.url;
	process.env.E2E_TIME_SCALE = String(E2E_TIME_SCALE);
	process.stdout.write(
		`[e2e] n8n ${info.version} at ${stack.n8n.url}, emulator at ${stack.emulator.url} ` +
			`(ready in ${((Date.now() - started) / 1000).toFixed(1)} s: imports ${(stack.n8n.timings.importMs / 1000).toFixed(1)} s, ` +
			`server ${(stack.n8n.timings.startMs / 1000).toFixed(1)} s)\n`,
	);
	if (mode === 'pack' && selectedEdition() === 'self-hosted') {
		const pack = await packPackage();
		process.stdout.write(
			`[e2e] package: ${pack.files.length} files, ${(pack.size / 1024).toFixed(1)} kB packed; npm install in n8n's nodes folder ` +
				`(dependencies from the registry) ${((stack.n8n.timings.packageMs ?? 0) / 1000).toFixed(1)} s\n`,
		);
	}
}
