/**
 * What users and reviewers look for in a kept repository, read from the files themselves: how to report
 * a vulnerability (SECURITY.md), issue forms that ask for what a bug report needs (n8n version, mode,
 * plan, package version), and Dependabot for npm and the GitHub Actions the workflows use.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, join } from 'path';

import { load } from 'js-yaml';

import { SvcMessagingApi } from '../credentials/SvcMessagingApi.credentials';

const ROOT = dirname(__dirname);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { author: { email: string }; bugs: { url: string }; repository: { url: string } };

interface FormField {
	type: string;
	id?: string;
	attributes: { label?: string; options?: string[] };
	validations?: { required?: boolean };
}
const form = (file: string) => load(read(`.github/ISSUE_TEMPLATE/${file}`)) as { name: string; description: string; body: FormField[] };
const field = (body: FormField[], id: string) => body.find((f) => f.id === id);

describe('SECURITY.md', () => {
	const text = read('SECURITY.md');

	it('says how to report privately: GitHub private reporting or the package author\'s e-mail, not a public issue', () => {
		expect(text).toMatch(/do not open a public issue/i);
		expect(text).toContain('Report a vulnerability');
		expect(text).toContain(pkg.author.email);
	});

	it('names what counts: secrets, webhooks, SSRF and duplicate sends', () => {
		for (const heading of ['**Secrets**', '**Webhooks**', '**SSRF**', '**Duplicate sends**']) expect(text).toContain(heading);
		expect(text).toMatch(/API key, webhook secret, Redis password/);
	});
});

describe('.github/ISSUE_TEMPLATE', () => {
	it('holds a bug report, a feature request and a config that sends vulnerabilities to private reporting', () => {
		expect(readdirSync(join(ROOT, '.github/ISSUE_TEMPLATE')).sort()).toEqual(['bug_report.yml', 'config.yml', 'feature_request.yml']);
		const config = load(read('.github/ISSUE_TEMPLATE/config.yml')) as { blank_issues_enabled: boolean; contact_links: Array<{ url: string }> };
		expect(config.blank_issues_enabled).toBe(false);
		const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
		expect(config.contact_links.map((l) => l.url)).toContain(`${repo}/security/advisories/new`);
		expect(pkg.bugs.url).toBe(`${repo}/issues`);
	});

	it('bug report requires the n8n version, the mode (regular or queue), the plan and the package version', () => {
		const { body } = form('bug_report.yml');
		for (const id of ['n8n-version', 'mode', 'plan', 'node-version', 'what-happened', 'reproduce']) {
			expect({ id, required: field(body, id)?.validations?.required }).toEqual({ id, required: true });
		}
		expect(field(body, 'mode')!.attributes.options!.map((o) => o.split(' ')[0])).toEqual(['regular', 'queue']);
	});

	it('bug report offers exactly the plans of the SVC Messaging API credential', () => {
		const plan = new SvcMessagingApi().properties.find((p) => p.name === 'plan')!;
		const credentialPlans = plan.options!.map((o) => ('name' in o ? String(o.name).split(' ')[0] : ''));
		expect(field(form('bug_report.yml').body, 'plan')!.attributes.options).toEqual([...credentialPlans, 'not sure']);
	});

	it('feature request asks for the problem and the proposal', () => {
		const { body } = form('feature_request.yml');
		expect(field(body, 'problem')?.validations?.required).toBe(true);
		expect(field(body, 'proposal')?.validations?.required).toBe(true);
	});
});

describe('.github/dependabot.yml', () => {
	const config = load(read('.github/dependabot.yml')) as { version: number; updates: Array<{ 'package-ecosystem': string; directory: string; schedule: { interval: string } }> };

	it('updates npm and GitHub Actions from the repository root, weekly', () => {
		expect(config.version).toBe(2);
		expect(config.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
		for (const u of config.updates) expect(u).toMatchObject({ directory: '/', schedule: { interval: 'weekly' } });
	});

	it('has something to update for each: a lockfile and workflows using actions', () => {
		expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
		const workflows = readdirSync(join(ROOT, '.github/workflows')).map((f) => read(`.github/workflows/${f}`));
		expect(workflows.join('\n')).toMatch(/uses: actions\/\S+@v\d+/);
	});
});
