/**
 * The safe defaults of `npm run dev` (test/e2e/dev.ts): n8n listens on 127.0.0.1 unless `--host`
 * names another address, and the owner's password is generated (not a fixed one printed in the
 * README), kept beside the dev data so that later runs log in with it.
 */
import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import { DEFAULT_SENDER_ID } from '../emulator/assumptions';

export interface DevNetwork {
	/** N8N_LISTEN_ADDRESS */
	listenAddress: string;
	/** the host name in the editor's and webhooks' URLs */
	urlHost: string;
	/** whether other machines can reach the editor */
	reachableFromOtherMachines: boolean;
}

/** Where n8n listens: `--host <address>` (e.g. 0.0.0.0 for every interface), default 127.0.0.1. */
export function devNetwork(argv: string[]): DevNetwork {
	const i = argv.indexOf('--host');
	const host = i > 0 && argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[i + 1] : '127.0.0.1';
	const everyInterface = host === '0.0.0.0' || host === '::';
	const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
	return {
		listenAddress: host,
		urlHost: everyInterface ? 'localhost' : host.includes(':') ? `[${host}]` : host,
		reachableFromOtherMachines: !loopback,
	};
}

/** A password n8n accepts (8+ characters, an upper-case letter and a digit), 18 random characters. */
export function generatePassword(): string {
	return `Svc-${randomBytes(12).toString('base64url')}-9`;
}

export const PASSWORD_FILE = 'owner-password.txt';

/**
 * The owner's password for this dev data folder: the one generated on its first run (kept in
 * `<userFolder>/owner-password.txt`, readable by this user only), or a new one when the folder
 * has no n8n database yet. `legacy` is the fixed password of data made before passwords were
 * generated (a database but no password file).
 */
export function devOwnerPassword(userFolder: string, legacy: string): { password: string; origin: 'new' | 'kept' | 'legacy' } {
	const file = join(userFolder, PASSWORD_FILE);
	if (existsSync(file)) return { password: readFileSync(file, 'utf8').trim(), origin: 'kept' };
	if (existsSync(join(userFolder, '.n8n', 'database.sqlite'))) return { password: legacy, origin: 'legacy' };
	const password = generatePassword();
	mkdirSync(userFolder, { recursive: true });
	writeFileSync(file, `${password}\n`, { mode: 0o600 });
	return { password, origin: 'new' };
}

/**
 * The banner's Redis lines of `npm run dev` and `npm run demo`: the redis-server they started for the
 * API key credentials' "Use Redis" (the Do-Not-Send List needs one), or how to get one.
 */
export function redisNote(redis: { host: string; port: number } | undefined): string[] {
	if (redis) {
		return [
			`redis        ${redis.host}:${redis.port}   (redis-server, emptied at each start; the SVC Messaging API credentials use it:`,
			'              "Use Redis" on, for the Do-Not-Send List, the shared rate limit and the send ledger)',
		];
	}
	return [
		'redis        none: redis-server is not installed, so the Do-Not-Send List resource has nowhere to keep its list.',
		'              `bash scripts/install-services.sh redis` installs it (Debian); the next start uses it.',
	];
}

/** The banner's Sender ID line: the default an empty Sender ID sends as (the node's field names the same), then the account's. */
export function senderNote(): string {
	return `Sender ID: empty sends as the service default ${DEFAULT_SENDER_ID}; the account's: SVCTEST (all six countries), ACMEKE (not Ghana), 20880 (numeric, Kenya).`;
}
