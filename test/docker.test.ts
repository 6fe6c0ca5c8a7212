/**
 * The Docker files for n8n 3 (Docker-only) and Docker installs of n8n 2, checked without Docker: the
 * compose file parsed as YAML (queue-mode layout: main, workers, webhook process, Redis, PostgreSQL,
 * every n8n process on the one custom image), and the Dockerfile's pins. The image is never built
 * here; its install step runs against n8n 2.41.1's folder layout in docker/check-install.sh.
 */
import { readFileSync } from 'fs';
import { dirname, join } from 'path';

import { load } from 'js-yaml';
import semver from 'semver';

const ROOT = dirname(__dirname);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Service {
	build?: { context: string; dockerfile: string; args?: Record<string, string> };
	image?: string;
	command?: string;
	environment?: Record<string, string>;
	depends_on?: Record<string, { condition: string }>;
	deploy?: { replicas?: number };
	volumes?: string[];
	healthcheck?: unknown;
}
const compose = load(read('docker/compose.queue.yml')) as { services: Record<string, Service> };
const services = compose.services;
const n8nServices = Object.entries(services).filter(([, s]) => s.build !== undefined);
const dockerfile = read('docker/Dockerfile');
const argDefault = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];

describe('docker/compose.queue.yml (queue mode; not run here)', () => {
	it('has one main, at least two workers, a webhook process, Redis and PostgreSQL', () => {
		const byCommand = (re: RegExp) => n8nServices.filter(([, s]) => re.test(s.command ?? ''));
		expect(byCommand(/^start$/)).toHaveLength(1);
		expect(byCommand(/^worker\b/)).toHaveLength(1);
		expect(byCommand(/^worker\b/)[0][1].deploy?.replicas).toBeGreaterThanOrEqual(2);
		expect(byCommand(/^webhook$/)).toHaveLength(1);
		expect(services.redis?.healthcheck).toBeDefined();
		expect(services.postgres?.healthcheck).toBeDefined();
		expect(Object.keys(services).sort()).toEqual(['n8n-main', 'n8n-webhook', 'n8n-worker', 'postgres', 'redis']);
	});

	it('runs every n8n process on the same custom image built from docker/Dockerfile', () => {
		expect(n8nServices).toHaveLength(3);
		const images = new Set(n8nServices.map(([, s]) => s.image));
		expect(images.size).toBe(1);
		for (const [, s] of n8nServices) expect(s.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile', args: expect.any(Object) });
		expect(n8nServices[0][1].build!.args!.PACKAGE_VERSION).toBe(`\${PACKAGE_VERSION:-${pkg.version}}`);
		expect(n8nServices[0][1].build!.args!.N8N_VERSION).toBe(`\${N8N_VERSION:-${argDefault('N8N_VERSION')}}`);
	});

	it('gives every n8n process queue mode on that Redis and PostgreSQL, and n8n 3\'s unverified-packages switch', () => {
		for (const [, s] of n8nServices) {
			const env = s.environment!;
			expect(env).toMatchObject({
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: 'redis',
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: 'postgres',
				N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			});
			expect(env.DB_POSTGRESDB_DATABASE).toBe(services.postgres.environment!.POSTGRES_DB);
			expect(env.DB_POSTGRESDB_USER).toBe(services.postgres.environment!.POSTGRES_USER);
		}
		const [main, worker, webhook] = ['n8n-main', 'n8n-worker', 'n8n-webhook'].map((n) => services[n]);
		expect(Object.keys(main.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
		expect(Object.keys(worker.depends_on ?? {})).toEqual(['n8n-main']);
		expect(Object.keys(webhook.depends_on ?? {})).toEqual(['n8n-main']);
	});

	it('takes secrets from the environment, never from the file', () => {
		for (const [, s] of n8nServices) {
			expect(s.environment!.N8N_ENCRYPTION_KEY).toMatch(/^\$\{N8N_ENCRYPTION_KEY:\?/);
			expect(s.environment!.DB_POSTGRESDB_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
		}
		expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
		expect(read('docker/.env.example')).toMatch(/^N8N_ENCRYPTION_KEY=$/m);
		expect(read('.gitignore')).toMatch(/^docker\/\.env$/m);
	});

	it('mounts nothing over the n8n user folder, where the image keeps the package', () => {
		for (const [, s] of n8nServices) for (const volume of s.volumes ?? []) expect(volume).not.toMatch(/:\/home\/node\/\.n8n/);
	});

	it('names the credential\'s shared-limit settings for this Redis', () => {
		const text = read('docker/compose.queue.yml');
		expect(text).toContain('Share Rate Limit Across n8n Processes');
		expect(text).toMatch(/Redis Host: redis\s+Redis Port: 6379/);
	});
});

describe('docker/Dockerfile (not built here)', () => {
	it('starts from the official n8n image at a pinned version', () => {
		expect(semver.valid(argDefault('N8N_VERSION'))).toBe(argDefault('N8N_VERSION'));
		expect(dockerfile).toMatch(/^FROM docker\.n8n\.io\/n8nio\/n8n:\$\{N8N_VERSION\}$/m);
	});

	it('installs this package at its package.json version into the node user\'s nodes folder, peers omitted', () => {
		expect(argDefault('PACKAGE_VERSION')).toBe(pkg.version);
		expect(dockerfile).toMatch(/^USER node$/m);
		expect(dockerfile).toContain(`RUN sh /tmp/install-package.sh /home/node/.n8n/nodes "${pkg.name}@\${PACKAGE_VERSION}"`);
		expect(read('docker/install-package.sh')).toMatch(/^npm install --omit=peer .*"\$spec"$/m);
		expect(read('docker/.env.example')).toContain(`PACKAGE_VERSION=${pkg.version}`);
	});
});
