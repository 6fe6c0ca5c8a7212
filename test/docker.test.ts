/**
 * The Docker files for n8n 3 (Docker-only) and Docker installs of n8n 2, checked without Docker: the
 * compose file parsed as YAML (queue-mode layout: main, workers, webhook process, Redis, PostgreSQL,
 * every n8n process on the one image built once, n8n's standard volume), docker/Caddyfile's routes
 * read as Caddy matches them (path matchers in order, then the catch-all), the Dockerfile's pins and
 * entrypoint, and .dockerignore. The image is never built here; its install and link steps run
 * against n8n 2.41.1's folder layout and loader in docker/check-install.sh.
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
	pull_policy?: string;
	command?: string;
	environment?: Record<string, string>;
	depends_on?: Record<string, { condition: string }>;
	deploy?: { replicas?: number };
	volumes?: string[];
	ports?: string[];
	healthcheck?: unknown;
}
const compose = load(read('docker/compose.queue.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const n8nServices = Object.entries(services).filter(([, s]) => /^n8n-svc-messaging:/.test(s.image ?? ''));
const dockerfile = read('docker/Dockerfile');
const argDefault = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];
const caddyfile = read('docker/Caddyfile');

/** Where docker/Caddyfile sends a request path: the upstream of the first matching route. */
function routeOf(path: string): string {
	const matchers = new Map<string, string[]>();
	for (const [, name, paths] of caddyfile.matchAll(/^\s*@(\S+) path (.+)$/gm)) matchers.set(name, paths.trim().split(/\s+/));
	for (const [, matcher, upstream] of caddyfile.matchAll(/^\s*reverse_proxy (?:@(\S+) )?(\S+)$/gm)) {
		const patterns = matcher ? matchers.get(matcher)! : ['/*'];
		if (patterns.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p))) return upstream;
	}
	return 'none';
}

describe('docker/compose.queue.yml (queue mode; not run here)', () => {
	it('has one main, at least two workers, a webhook process, the proxy, Redis and PostgreSQL', () => {
		const byCommand = (re: RegExp) => n8nServices.filter(([, s]) => re.test(s.command ?? ''));
		expect(byCommand(/^start$/)).toHaveLength(1);
		expect(byCommand(/^worker\b/)).toHaveLength(1);
		expect(byCommand(/^worker\b/)[0][1].deploy?.replicas).toBeGreaterThanOrEqual(2);
		expect(byCommand(/^webhook$/)).toHaveLength(1);
		expect(services.redis?.healthcheck).toBeDefined();
		expect(services.postgres?.healthcheck).toBeDefined();
		expect(Object.keys(services).sort()).toEqual(['n8n-main', 'n8n-webhook', 'n8n-worker', 'postgres', 'proxy', 'redis']);
	});

	it('builds the image once (n8n-main) and runs every n8n process on it by name, never pulling it', () => {
		expect(n8nServices).toHaveLength(3);
		expect(new Set(n8nServices.map(([, s]) => s.image)).size).toBe(1);
		const built = n8nServices.filter(([, s]) => s.build !== undefined);
		expect(built.map(([name]) => name)).toEqual(['n8n-main']);
		const { build } = built[0][1];
		expect(build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile', args: expect.any(Object) });
		expect(build!.args!.PACKAGE_VERSION).toBe(`\${PACKAGE_VERSION:-${pkg.version}}`);
		expect(build!.args!.N8N_VERSION).toBe(`\${N8N_VERSION:-${argDefault('N8N_VERSION')}}`);
		expect(services['n8n-main'].image).toBe(`n8n-svc-messaging:\${N8N_VERSION:-${argDefault('N8N_VERSION')}}-\${PACKAGE_VERSION:-${pkg.version}}`);
		expect(services['n8n-main'].pull_policy).toBe('build');
		for (const name of ['n8n-worker', 'n8n-webhook']) expect(services[name].pull_policy).toBe('never');
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

	it('keeps n8n\'s standard volume on /home/node/.n8n of every n8n process', () => {
		for (const [, s] of n8nServices) expect(s.volumes).toEqual(['n8n-data:/home/node/.n8n']);
		expect(Object.keys(compose.volumes)).toContain('n8n-data');
	});

	it('publishes only the proxy, which sends production and waiting webhooks and forms to the webhook process, the rest to main', () => {
		expect(services.proxy.ports).toEqual(['5678:80']);
		expect(services.proxy.volumes).toEqual(['./Caddyfile:/etc/caddy/Caddyfile:ro']);
		for (const [, s] of n8nServices) expect(s.ports).toBeUndefined();
		for (const path of ['/webhook/abc/svc-messaging', '/webhook-waiting/123', '/form/x', '/form-waiting/5']) expect({ path, to: routeOf(path) }).toEqual({ path, to: 'n8n-webhook:5678' });
		for (const path of ['/', '/rest/workflows', '/rest/push', '/webhook-test/abc/svc-messaging', '/form-test/x', '/home/workflows', '/webhooks']) {
			expect({ path, to: routeOf(path) }).toEqual({ path, to: 'n8n-main:5678' });
		}
	});

	it('builds every URL n8n hands out (production, waiting, test) on the proxy\'s public address', () => {
		for (const [, s] of n8nServices) {
			expect(s.environment!.WEBHOOK_URL).toBe('${PUBLIC_URL:-http://localhost:5678/}');
			expect(s.environment!.N8N_EDITOR_BASE_URL).toBe(s.environment!.WEBHOOK_URL);
			expect(s.environment!.N8N_PROXY_HOPS).toBe('1');
		}
		expect(read('docker/.env.example')).toMatch(/^PUBLIC_URL=http:\/\/localhost:5678\/$/m);
	});

	it('names the credential\'s shared-limit settings for this Redis', () => {
		const text = read('docker/compose.queue.yml');
		expect(text).toContain('Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)');
		expect(text).toMatch(/Redis Host: redis\s+Redis Port: 6379/);
	});
});

describe('docker/Dockerfile (not built here)', () => {
	it('starts from the official n8n image at a pinned version', () => {
		expect(semver.valid(argDefault('N8N_VERSION'))).toBe(argDefault('N8N_VERSION'));
		expect(dockerfile).toMatch(/^FROM docker\.n8n\.io\/n8nio\/n8n:\$\{N8N_VERSION\}$/m);
	});

	it('installs this package at its package.json version in /opt, outside the /home/node/.n8n volume, peers omitted', () => {
		expect(argDefault('PACKAGE_VERSION')).toBe(pkg.version);
		expect(dockerfile).toMatch(/^USER node$/m);
		expect(dockerfile).toContain(`RUN sh /opt/n8n-svc-messaging/install-package.sh /opt/n8n-svc-messaging "${pkg.name}@\${PACKAGE_VERSION}"`);
		expect(read('docker/install-package.sh')).toMatch(/^npm install --omit=peer .*"\$spec"$/m);
		expect(read('docker/.env.example')).toContain(`PACKAGE_VERSION=${pkg.version}`);
	});

	it('links it into the nodes folder at every start, then hands over to the official entrypoint', () => {
		expect(dockerfile).toMatch(/^ENTRYPOINT \["tini", "--", "\/bin\/sh", "\/opt\/n8n-svc-messaging\/entrypoint\.sh"\]$/m);
		const entrypoint = read('docker/entrypoint.sh');
		expect(entrypoint).toContain(`sh /opt/n8n-svc-messaging/link-package.sh "\${N8N_USER_FOLDER:-$HOME}/.n8n/nodes" /opt/n8n-svc-messaging/node_modules/${pkg.name}`);
		expect(entrypoint.trimEnd().split('\n').pop()).toBe('exec /docker-entrypoint.sh "$@"');
	});

	it('copies only those three scripts into the image; .dockerignore keeps everything else out of the context', () => {
		const copied = [...dockerfile.matchAll(/^COPY (?:--\S+ )*(.+) \S+$/gm)].flatMap(([, sources]) => sources.split(' '));
		expect(copied.sort()).toEqual(['docker/entrypoint.sh', 'docker/install-package.sh', 'docker/link-package.sh']);
		const ignore = read('.dockerignore').split('\n').filter((l) => l && !l.startsWith('#'));
		expect(ignore[0]).toBe('*');
		expect(ignore.slice(1).sort()).toEqual(copied.map((c) => `!${c}`));
	});
});
