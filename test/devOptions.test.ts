/**
 * `npm run dev` (test/e2e/dev.ts) is safe by default: n8n listens on 127.0.0.1 unless `--host` says
 * otherwise, and the owner's password is generated once per dev data folder, kept there readable by
 * this user only, instead of a fixed password everyone knows.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { devNetwork, devOwnerPassword, generatePassword, PASSWORD_FILE, redisNote, senderNote } from './e2e/devOptions';
import { SERVICE } from '../nodes/SvcMessaging/transport/service';
import { description as sendDescription } from '../nodes/SvcMessaging/actions/sms/send.operation';

describe('npm run dev: where n8n listens', () => {
	it('is 127.0.0.1 without --host', () => {
		expect(devNetwork(['node', 'dev.ts'])).toEqual({ listenAddress: '127.0.0.1', urlHost: '127.0.0.1', reachableFromOtherMachines: false });
		expect(devNetwork(['node', 'dev.ts', '--fresh', '--port', '5678']).listenAddress).toBe('127.0.0.1');
		// A flag is not an address.
		expect(devNetwork(['node', 'dev.ts', '--host', '--fresh']).listenAddress).toBe('127.0.0.1');
	});

	it('is what --host names, with URLs that still open in a browser', () => {
		expect(devNetwork(['node', 'dev.ts', '--host', '0.0.0.0'])).toEqual({ listenAddress: '0.0.0.0', urlHost: 'localhost', reachableFromOtherMachines: true });
		expect(devNetwork(['node', 'dev.ts', '--host', '::'])).toEqual({ listenAddress: '::', urlHost: 'localhost', reachableFromOtherMachines: true });
		expect(devNetwork(['node', 'dev.ts', '--host', '192.168.1.20'])).toEqual({
			listenAddress: '192.168.1.20',
			urlHost: '192.168.1.20',
			reachableFromOtherMachines: true,
		});
		expect(devNetwork(['node', 'dev.ts', '--host', '::1'])).toEqual({ listenAddress: '::1', urlHost: '[::1]', reachableFromOtherMachines: false });
	});
});

describe('npm run dev: the owner password', () => {
	let folder: string;
	beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'svc-dev-'))));
	afterEach(() => rmSync(folder, { recursive: true, force: true }));

	it('is generated, different each time, and one n8n accepts (8+ characters, upper case, digit)', () => {
		const passwords = new Set(Array.from({ length: 20 }, generatePassword));
		expect(passwords.size).toBe(20);
		for (const password of passwords) {
			expect(password.length).toBeGreaterThanOrEqual(8);
			expect(password).toMatch(/[A-Z]/);
			expect(password).toMatch(/\d/);
			expect(password).not.toBe('SvcDemo-2026');
		}
	});

	it('is generated on the first run, written readable by this user only, and kept for later runs', () => {
		const dev = join(folder, 'dev');
		const first = devOwnerPassword(dev, 'SvcDemo-2026');
		expect(first.origin).toBe('new');
		expect(first.password).not.toBe('SvcDemo-2026');
		const file = join(dev, PASSWORD_FILE);
		expect(readFileSync(file, 'utf8')).toBe(`${first.password}\n`);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(devOwnerPassword(dev, 'SvcDemo-2026')).toEqual({ password: first.password, origin: 'kept' });
	});

	it('stays the fixed one for n8n data made before passwords were generated (and says so)', () => {
		mkdirSync(join(folder, '.n8n'), { recursive: true });
		writeFileSync(join(folder, '.n8n', 'database.sqlite'), '');
		expect(devOwnerPassword(folder, 'SvcDemo-2026')).toEqual({ password: 'SvcDemo-2026', origin: 'legacy' });
		expect(existsSync(join(folder, PASSWORD_FILE))).toBe(false);
	});
});

describe('npm run dev and demo: the Redis they say they use', () => {
	it('names the redis-server they started and what the credentials use it for', () => {
		const lines = redisNote({ host: '127.0.0.1', port: 41234 }).join('\n');
		expect(lines).toContain('127.0.0.1:41234');
		expect(lines).toContain('"Use Redis" on, for the Do-Not-Send List');
	});

	it('without redis-server: says the Do-Not-Send List has no Redis, and how to install one', () => {
		const lines = redisNote(undefined).join('\n');
		expect(lines).toContain('redis-server is not installed');
		expect(lines).toContain('bash scripts/install-services.sh redis');
	});
});

describe('the default sender ID: one name in the node, the dev banner and docs/emulator.md', () => {
	it('the Sender ID field, the banner and docs/emulator.md name the default the node reports for an empty Sender ID', () => {
		const field = sendDescription.find((p) => p.name === 'senderId');
		expect(field?.description).toContain(`service default (${SERVICE.defaultSenderId})`);
		expect(senderNote()).toContain(`empty sends as the service default ${SERVICE.defaultSenderId}`);
		expect(readFileSync(join(__dirname, '..', 'docs', 'emulator.md'), 'utf8')).toContain(`an empty Sender ID sends as the service default \`${SERVICE.defaultSenderId}\``);
	});
});
