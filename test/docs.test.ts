/**
 * README and docs/ as a user reads them: every relative link resolves to a file of this repository
 * and every `#anchor` to a heading of its target (GitHub's slugs), the nodes' documentation links
 * open a README heading, README stays a five-minute read (at most 15 KB and 300 lines, no line over
 * 200 characters outside code, no table cell over one sentence, no test file names, no internal
 * constant names, no dated figures), the "not shown" contract is written only in docs/assumptions.md,
 * docs/layout.md names every folder of the action node, and docs/emulator.md lists every key, login
 * and seeded item of the emulator that a user types into a credential.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

import { SEED_CONTACT_GROUPS, SEED_KEYS, SEED_LOGINS, SEED_OPT_INS, SEED_SENDER_IDS } from './emulator/seed';

const ROOT = dirname(__dirname);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const readme = read('README.md');
const markdownFiles = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks and inline code (links there are not links). */
function prose(text: string): string {
	return text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation other than - and _ dropped, spaces to -. */
function slug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[*_`]/g, (c) => (c === '_' ? '_' : ''))
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

function anchors(text: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	for (const match of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
		const base = slug(match[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		result.add(n === 0 ? base : `${base}-${n}`);
	}
	return result;
}

/** Relative links of a markdown file: [text](target) and ![alt](target), external ones left out. */
function relativeLinks(text: string): string[] {
	return [...prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe.each(markdownFiles)('%s', (file) => {
	const text = read(file);
	const links = relativeLinks(text);

	it('links only to files and headings that exist', () => {
		const broken: string[] = [];
		for (const link of links) {
			const [path, anchor] = link.split('#') as [string, string | undefined];
			const target = path ? resolve(dirname(join(ROOT, file)), decodeURIComponent(path)) : join(ROOT, file);
			if (!target.startsWith(ROOT) || !existsSync(target)) {
				broken.push(`${link} (no file ${relative(ROOT, target)})`);
				continue;
			}
			if (anchor !== undefined && (!target.endsWith('.md') || !anchors(readFileSync(target, 'utf8')).has(anchor))) {
				broken.push(`${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
			}
			if (anchor === undefined && statSync(target).isFile() && target.endsWith('.png')) expect(statSync(target).size).toBeGreaterThan(0);
		}
		expect(broken).toEqual([]);
	});
});

describe('README.md', () => {
	it('has links to check (the link test above is not empty)', () => {
		expect(relativeLinks(readme).length).toBeGreaterThan(15);
		expect(relativeLinks(readme).filter((l) => l.startsWith('#')).length).toBeGreaterThan(5);
	});

	it('is at most 300 lines', () => {
		expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(300);
	});

	it('names no test file, internal constant or source file, and no dated figure', () => {
		expect(readme.match(/\b[\w/.-]+\.test\.ts\b/g)).toBeNull();
		expect(readme.match(/\b(?:DELIVERY_WAIT|SEND_LEDGER|INPUT_LIMITS|BULK_RECIPIENTS_IN_FLIGHT|TRIGGER_LIMITS|LOGIN_RETRY|MEDIA_CHECK|COMMAND_TIMEOUT_MS)\b/g)).toBeNull();
		expect(readme.match(/\b[\w/-]+\.ts\b/g)).toBeNull();
		expect(readme.match(/\b20\d\d-\d\d-\d\d\b/g)).toBeNull();
	});

	it('has the sections a new user looks for', () => {
		const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
		for (const section of ['Install', 'Send your first SMS', 'Nodes and credentials', 'Delivery reports', 'Send and Wait', 'AI agents', 'n8n 3 and Docker', 'Troubleshooting', 'Compatibility', 'Development', 'Links']) {
			expect(headings).toContain(section);
		}
		expect(readme).toContain('N8N_UNVERIFIED_PACKAGES_ENABLED=true');
		expect(readme).toContain('npm test');
	});

	it('is at most 15 KB, with no line over 200 characters outside code blocks', () => {
		expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024);
		const long = readme.replace(/```[\s\S]*?```/g, '').split('\n').filter((line) => line.length > 200);
		expect(long).toEqual([]);
	});

	it('says at most one sentence in a table cell', () => {
		const cells = prose(readme)
			.split('\n')
			.filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
			.flatMap((line) => line.replace(/\\\|/g, '').split('|').slice(1, -1));
		expect(cells.length).toBeGreaterThan(10);
		expect(cells.filter((cell) => /[.!?]\s+\S/.test(cell.replace(/\b(?:e\.g|i\.e)\./g, '')))).toEqual([]);
	});

	it('links to docs/assumptions.md and repeats none of its rows', () => {
		expect(relativeLinks(readme)).toContain('docs/assumptions.md');
		const contract = read('docs/assumptions.md');
		expect(contract.match(/^\| .+ \| .+ \|$/gm)?.length).toBeGreaterThan(70);
		expect(readme).not.toContain('Topic (spec');
		const choices = readme
			.split('\n')
			.filter((line) => line.startsWith('|'))
			.map((line) => line.split('|')[2]?.trim() ?? '')
			.filter((choice) => choice.length >= 30);
		expect(choices.filter((choice) => contract.includes(choice))).toEqual([]);
	});

	it('has the heading that the nodes\' and credentials\' documentation links open', () => {
		const urls = ['nodes/SvcMessaging/transport/service.ts', 'nodes/SvcMessaging/SvcMessaging.node.json', 'nodes/SvcMessaging/SvcMessagingTrigger.node.json', 'credentials/SvcMessagingApi.credentials.ts', 'credentials/SvcMessagingAccountApi.credentials.ts']
			.flatMap((file) => [...read(file).matchAll(/https:\/\/github\.com\/svc-messaging\/n8n-nodes-svc-messaging#([\w-]+)/g)].map((m) => m[1]));
		expect(urls.length).toBeGreaterThanOrEqual(7);
		for (const anchor of new Set(urls)) expect(anchors(readme)).toContain(anchor);
	});

	it('names the n8n versions that scripts/install-n8n.sh installs', () => {
		const install = read('scripts/install-n8n.sh');
		for (const version of [...install.matchAll(/"n8n": "(\d+\.\d+\.\d+)"/g)].map((m) => m[1])) expect(readme).toContain(`**${version}**`);
	});
});

describe('docs/layout.md', () => {
	const layout = read('docs/layout.md');
	const folders = (dir: string) => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('__')).map((e) => e.name);

	it('is a tree naming every folder of the action node and of sending/, and points to sending/README.md', () => {
		const missing = [...folders('nodes/SvcMessaging'), ...folders('nodes/SvcMessaging/sending')].filter((name) => !layout.includes(`${name}/`));
		expect(missing).toEqual([]);
		expect(relativeLinks(layout)).toContain('../nodes/SvcMessaging/sending/README.md');
	});
});

describe('docs/emulator.md', () => {
	const emulatorDoc = read('docs/emulator.md');

	it('lists every sandbox key, login, sender ID, opt-in and contact group of the seed', () => {
		const values = [
			...Object.values(SEED_KEYS),
			...Object.values(SEED_LOGINS).flatMap((l) => [l.email, l.password]),
			...Object.values(SEED_SENDER_IDS),
			...SEED_OPT_INS,
			...Object.values(SEED_CONTACT_GROUPS).flat(),
		];
		expect(values.filter((value) => !emulatorDoc.includes(`\`${value}\``))).toEqual([]);
	});
});
