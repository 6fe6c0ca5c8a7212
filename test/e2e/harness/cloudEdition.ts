/**
 * The n8n Cloud edition's package as `npm run build:cloud` leaves it (cloud/dist/package): its
 * manifest, its names (from its own compiled platform/edition.js) and the emulator's API-key
 * credentials of its credential type. Read when first asked for, so that a suite that does not use
 * it needs no Cloud build.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

import { ROOT } from './target';
import type { CredentialJson } from './workflows';

export const CLOUD_DIR = join(ROOT, 'cloud', 'dist', 'package');

export interface CloudEdition {
	manifest: { name: string; version: string; dependencies?: object };
	packageName: string;
	nodeType: string;
	triggerType: string;
	/** the API-key credential type's name (svcMessagingCloudApi) */
	apiKeyCredential: string;
	/** the credential type of the account login */
	accountCredential: string;
}

let edition: CloudEdition | undefined;

export function cloudEdition(): CloudEdition {
	if (edition) return edition;
	if (!existsSync(join(CLOUD_DIR, 'package.json'))) throw new Error('cloud/dist/package is missing: run `npm run build:cloud` first');
	const manifest = JSON.parse(readFileSync(join(CLOUD_DIR, 'package.json'), 'utf8')) as CloudEdition['manifest'];
	const { EDITION } = require(join(CLOUD_DIR, 'dist/nodes/SvcMessaging/platform/edition.js')) as {
		EDITION: { packageName: string; action: { name: string }; trigger: { name: string }; apiKeyCredential: { name: string }; accountCredential: { name: string } };
	};
	edition = {
		manifest,
		packageName: EDITION.packageName,
		nodeType: `${EDITION.packageName}.${EDITION.action.name}`,
		triggerType: `${EDITION.packageName}.${EDITION.trigger.name}`,
		apiKeyCredential: EDITION.apiKeyCredential.name,
		accountCredential: EDITION.accountCredential.name,
	};
	return edition;
}

/** The emulator's seeded keys as Cloud credentials (fixed ids, as emulatorCredentials() has for the self-hosted type). */
export const CLOUD_CREDENTIALS = {
	free: { id: 'svcCloudFreeKey1', name: 'SVC Messaging Cloud API (emulator, Free)', apiKey: 'svc_test_free_0001' },
	starter: { id: 'svcCloudStarter1', name: 'SVC Messaging Cloud API (emulator, Starter)', apiKey: 'svc_test_starter_0001' },
} as const;

export type CloudPlan = keyof typeof CLOUD_CREDENTIALS;

/** A workflow node's `credentials` for the Cloud key of `plan`. */
export const cloudCredentialRef = (plan: CloudPlan) => ({ [cloudEdition().apiKeyCredential]: { id: CLOUD_CREDENTIALS[plan].id, name: CLOUD_CREDENTIALS[plan].name } });

/** What `n8n import:credentials` reads: the Cloud API-key credentials against the emulator at `emulatorUrl`. */
export function cloudCredentials(emulatorUrl: string): CredentialJson[] {
	return (Object.keys(CLOUD_CREDENTIALS) as CloudPlan[]).map((plan) => ({
		id: CLOUD_CREDENTIALS[plan].id,
		name: CLOUD_CREDENTIALS[plan].name,
		type: cloudEdition().apiKeyCredential,
		data: { baseUrl: emulatorUrl, apiKey: CLOUD_CREDENTIALS[plan].apiKey, plan },
	}));
}
