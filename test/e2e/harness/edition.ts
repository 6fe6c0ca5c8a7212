/**
 * Which of the two packages built from this source the real-n8n harness loads: the self-hosted one
 * (default) or, with E2E_EDITION=cloud, the n8n Cloud edition (cloud/dist/package, `npm run
 * build:cloud`). With the Cloud edition, every workflow and credential the harness hands to n8n
 * (imports, the public API, the editor's REST API) is rewritten to the Cloud edition's type names,
 * so that the suites written for the self-hosted package run against it unchanged.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';

import { CLOUD_DIR, cloudEdition } from './cloudEdition';
import { NODE_TYPE, PACKAGE_NAME, TRIGGER_TYPE } from './target';

export type Edition = 'self-hosted' | 'cloud';

export function selectedEdition(): Edition {
	const value = process.env.E2E_EDITION || 'self-hosted';
	if (value !== 'self-hosted' && value !== 'cloud') throw new Error(`E2E_EDITION must be "self-hosted" or "cloud", not "${value}"`);
	return value;
}

let renames: Array<[RegExp, string]> | undefined;

/** The self-hosted names (node types, credential types) and the Cloud edition's, as JSON strings. */
function cloudRenames(): Array<[RegExp, string]> {
	if (renames) return renames;
	const cloud = cloudEdition();
	const pairs: Array<[string, string]> = [
		[NODE_TYPE, cloud.nodeType],
		[`${NODE_TYPE}Tool`, `${cloud.nodeType}Tool`],
		[TRIGGER_TYPE, cloud.triggerType],
		['svcMessagingApi', cloud.apiKeyCredential],
		['svcMessagingAccountApi', cloud.accountCredential],
	];
	// A whole JSON string only (a type, or a node's `credentials` key), never part of a longer one.
	renames = pairs.map(([from, to]) => [new RegExp(`"${from.replace(/\./g, '\\.')}"`, 'g'), `"${to}"`]);
	return renames;
}

/** `value` (a workflow, a credential, a request body) with the selected edition's type names. */
export function forEdition<T>(value: T): T {
	if (selectedEdition() === 'self-hosted' || value === undefined || typeof value === 'string') return value;
	let json = JSON.stringify(value);
	for (const [from, to] of cloudRenames()) json = json.replace(from, to);
	return JSON.parse(json) as T;
}

/** Whether a request to this REST or public-API path carries workflows or credentials. */
export const carriesTypes = (path: string) => /^\/(rest\/)?(workflows|credentials)\b/.test(path);

/**
 * Puts the Cloud edition's package folder (what its tarball holds: package.json, README, LICENSE,
 * dist/) into n8n's nodes folder. It has no dependencies, so there is no npm install to run.
 */
export function stageCloudPackage(userFolder: string): void {
	const cloud = cloudEdition();
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', cloud.packageName);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	cpSync(CLOUD_DIR, target, { recursive: true });
	const nodesPkg = join(nodesDir, 'package.json');
	const installed = existsSync(nodesPkg)
		? (JSON.parse(readFileSync(nodesPkg, 'utf8')) as { dependencies: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} as Record<string, string> };
	installed.dependencies[cloud.packageName] = cloud.manifest.version;
	delete installed.dependencies[PACKAGE_NAME];
	writeFileSync(nodesPkg, JSON.stringify(installed, null, 2));
}
