/**
 * The publishing set-up that only GitHub can run, checked here: both workflow files
 * (.github/workflows/ci.yml and publish.yml) parsed as YAML (triggers, permissions, steps and their
 * order, the Node version against package.json "engines"), the package.json fields a provenance
 * publish and n8n's scanner need, and the prepublishOnly guard that refuses a publish outside CI.
 */
import { spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { dirname, join } from 'path';

import { load } from 'js-yaml';
import semver from 'semver';

const ROOT = dirname(__dirname);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Workflow {
	on: Record<string, { branches?: string[]; tags?: string[] } | null>;
	permissions?: Record<string, string>;
	jobs: Record<string, { 'runs-on': string; permissions?: Record<string, string>; steps: Step[] }>;
}

function workflow(file: string): { text: string; parsed: Workflow; steps: Step[]; job: Workflow['jobs'][string] } {
	const text = readFileSync(join(ROOT, '.github', 'workflows', file), 'utf8');
	const parsed = load(text) as Workflow;
	const jobs = Object.values(parsed.jobs);
	expect(jobs).toHaveLength(1);
	return { text, parsed, job: jobs[0], steps: jobs[0].steps };
}

/** Index of the first step whose `run` contains `command` (one command per line). */
function stepIndex(steps: Step[], command: RegExp): number {
	return steps.findIndex((s) => (s.run ?? '').split('\n').some((line) => command.test(line.trim())));
}

/** A GitHub Actions tag filter ('v*.*.*') as a RegExp: `*` is any run of characters but `/`. */
function tagFilter(glob: string): RegExp {
	return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
}

const ci = workflow('ci.yml');
const publish = workflow('publish.yml');

describe.each([
	['ci.yml', ci],
	['publish.yml', publish],
])('%s', (_file, wf) => {
	it('checks out the repository and sets up a Node that package.json "engines" allows', () => {
		expect(wf.steps[0].uses).toMatch(/^actions\/checkout@v\d+$/);
		const setup = wf.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		const nodeVersion = String(setup?.with?.['node-version']);
		expect(semver.valid(nodeVersion)).toBe(nodeVersion);
		expect(semver.satisfies(nodeVersion, pkg.engines.node)).toBe(true);
		// The oldest major "engines" allows: the one the tests were written for.
		expect(semver.major(nodeVersion)).toBe(semver.minVersion(pkg.engines.node)!.major);
		expect(setup?.with?.cache).toBe('npm');
	});

	it('installs with npm ci (the lock file), after npm 11 that wrote package-lock.json', () => {
		const npm11 = stepIndex(wf.steps, /^npm install -g npm@11\.\d+\.\d+$/);
		expect(npm11).toBeGreaterThan(0);
		expect(stepIndex(wf.steps, /^npm ci$/)).toBeGreaterThan(npm11);
		expect(JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).lockfileVersion).toBe(3);
	});

	it('builds, lints and runs n8n\'s community-package scan after installing', () => {
		const install = stepIndex(wf.steps, /^npm ci$/);
		for (const command of [/^npm run build$/, /^npm run lint$/, /^npm run lint:scan$/]) {
			expect(stepIndex(wf.steps, command)).toBeGreaterThan(install);
		}
		expect(stepIndex(wf.steps, /^npm run lint:scan$/)).toBeGreaterThan(stepIndex(wf.steps, /^npm run build$/));
	});
});

describe('ci.yml', () => {
	it('runs on every pull request and on pushes to main', () => {
		expect(Object.keys(ci.parsed.on).sort()).toEqual(['pull_request', 'push']);
		expect(ci.parsed.on.pull_request).toBeNull();
		expect(ci.parsed.on.push).toEqual({ branches: ['main'] });
	});

	it('reads the repository only', () => {
		expect(ci.parsed.permissions).toEqual({ contents: 'read' });
		expect(ci.job.permissions).toBeUndefined();
	});

	it('runs npm test after the build, with redis-server for the shared rate-limit tests, and a publish dry run', () => {
		const test = stepIndex(ci.steps, /^npm test$/);
		expect(test).toBeGreaterThan(stepIndex(ci.steps, /^npm run build$/));
		expect(stepIndex(ci.steps, /^bash scripts\/install-services\.sh redis$/)).toBeGreaterThan(stepIndex(ci.steps, /^npm ci$/));
		expect(stepIndex(ci.steps, /^bash scripts\/install-services\.sh redis$/)).toBeLessThan(test);
		expect(stepIndex(ci.steps, /^npm publish --dry-run$/)).toBeGreaterThan(stepIndex(ci.steps, /^npm run build$/));
		expect(stepIndex(ci.steps, /npm publish(?! --dry-run)/)).toBe(-1);
		expect(ci.text).not.toMatch(/secrets\./);
	});
});

describe('publish.yml', () => {
	it('runs only on a version tag (v + the package.json version)', () => {
		expect(Object.keys(publish.parsed.on)).toEqual(['push']);
		const { tags, branches } = publish.parsed.on.push!;
		expect(branches).toBeUndefined();
		expect(tags).toEqual(['v*.*.*']);
		const filter = tagFilter(tags![0]);
		for (const tag of [`v${pkg.version}`, 'v1.2.3', 'v2.0.0-rc.1']) expect(tag).toMatch(filter);
		for (const tag of [pkg.version, 'latest', 'v1']) expect(tag).not.toMatch(filter);
		const check = publish.steps.find((s) => /GITHUB_REF_NAME/.test(s.run ?? ''));
		expect(check?.run).toContain(`"v$version"`);
		expect(publish.steps.indexOf(check!)).toBeLessThan(stepIndex(publish.steps, /^npm publish/));
	});

	it('may mint an OIDC token (provenance, Trusted Publishing) and only read the repository', () => {
		expect(publish.parsed.permissions).toBeUndefined();
		expect(publish.job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	it('publishes with provenance as the last step, after build and lint, with prepublishOnly enabled', () => {
		const steps = publish.steps;
		const publishStep = stepIndex(steps, /^npm publish /);
		expect(publishStep).toBe(steps.length - 1);
		expect(publishStep).toBeGreaterThan(stepIndex(steps, /^npm run build$/));
		expect(publishStep).toBeGreaterThan(stepIndex(steps, /^npm run lint$/));
		const command = steps[publishStep].run!.split('\n').find((line) => line.startsWith('npm publish'))!;
		expect(command.split(' ')).toEqual(expect.arrayContaining(['--provenance', '--ignore-scripts=false']));
	});

	it('uses an NPM_TOKEN secret only as a fallback to Trusted Publishing', () => {
		const last = publish.steps[publish.steps.length - 1];
		expect(last.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(last.run).toContain('[ -n "$NPM_TOKEN" ] && npm config set //registry.npmjs.org/:_authToken "$NPM_TOKEN"');
		// The secret appears nowhere else in the workflow.
		expect(publish.text.match(/secrets\.\w+/g)).toEqual(['secrets.NPM_TOKEN']);
	});
});

describe('package.json for a provenance publish', () => {
	it('names the GitHub repository the provenance statement will record, and where to report bugs', () => {
		const match = /^git\+https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\.git$/.exec(pkg.repository.url);
		expect(pkg.repository.type).toBe('git');
		expect(match).not.toBeNull();
		const [, owner, repo] = match!;
		expect(pkg.homepage).toBe(`https://github.com/${owner}/${repo}#readme`);
		expect(pkg.bugs.url).toBe(`https://github.com/${owner}/${repo}/issues`);
	});

	it('has an author with an email, and always asks npm for provenance', () => {
		expect(pkg.author.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/);
		expect(pkg.publishConfig).toEqual({ access: 'public', provenance: true });
		expect(pkg.overrides).toBeUndefined();
	});
});

describe('prepublishOnly', () => {
	const guard = (env: Record<string, string>) => {
		const clean = Object.fromEntries(
			Object.entries(process.env).filter(([k]) => k !== 'GITHUB_ACTIONS' && k.toLowerCase() !== 'npm_config_dry_run'),
		);
		return spawnSync(process.execPath, [join(ROOT, 'scripts', 'prepublish-guard.mjs')], { env: { ...clean, ...env }, encoding: 'utf8' });
	};

	it('runs the guard first, then builds and lints', () => {
		expect(pkg.scripts.prepublishOnly).toBe('node scripts/prepublish-guard.mjs && npm run build && npm run lint');
	});

	it('refuses a publish outside GitHub Actions, saying how to publish', () => {
		const run = guard({});
		expect(run.status).toBe(1);
		expect(run.stderr).toContain('published only from GitHub Actions');
		expect(run.stderr).toContain('git tag v<version> && git push origin v<version>');
	});

	it('lets a dry run through anywhere, and a publish in GitHub Actions', () => {
		expect(guard({ npm_config_dry_run: 'true' }).status).toBe(0);
		expect(guard({ GITHUB_ACTIONS: 'true' }).status).toBe(0);
	});
});
