import { readFileSync } from 'fs';
import { join } from 'path';

import type { INodeProperties } from 'n8n-workflow';

import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';

/**
 * Node version 2 must leave version 1's form as it was: test/fixtures/description-v1.json holds
 * the node's properties as they were before version 2 (taken from the description snapshot of
 * that commit), plus what both versions gained since for safety (Chat Message's option "Allow
 * Private Media Hosts"; SMS Send's "Allow Private Delivery Report Hosts" and the
 * template naming rule in Create's Name description; SMS Send, Send and Wait and Send Bulk's option
 * "Replace Look-Alike Characters", off by default; every sending operation's options "Dry Run",
 * "Max Credits", "Idempotency Key", "Remember Key For (Hours)" and (not campaigns) "Sending Hours", which do nothing unless added; the Do-Not-Send
 * List resource and every sending operation's "Do-Not-Send List" field; the "By ID" rules of Sender ID and Campaign ID as
 * hints, not regexes n8n runs with a 250 ms timeout). Version 1's view of today's properties — those shown for version 1, with their
 * `@version` condition removed — must serialise to exactly that text.
 */
function viewOf(version: number, properties: INodeProperties[]): INodeProperties[] {
	return properties
		.filter((p) => {
			const versions = p.displayOptions?.show?.['@version'] as number[] | undefined;
			return !versions || versions.includes(version);
		})
		.map((p) => {
			const versions = p.displayOptions?.show?.['@version'];
			if (!versions) return p;
			const { '@version': _version, ...show } = p.displayOptions!.show!;
			return { ...p, displayOptions: { ...p.displayOptions, show } };
		});
}

const description = new SvcMessaging().description;

describe('node versions', () => {
	it('has versions 1 and 2, 2 for new nodes', () => {
		expect(description.version).toEqual([1, 2]);
		expect(description.defaultVersion).toBe(2);
	});

	it("version 1's properties serialise byte for byte as before version 2", () => {
		const before = readFileSync(join(__dirname, 'fixtures/description-v1.json'), 'utf8');
		expect(JSON.stringify(viewOf(1, description.properties), null, '\t') + '\n').toBe(before);
	});

	it('version 2 has its new defaults and fields', () => {
		const v2 = viewOf(2, description.properties);
		const defaultOf = (name: string, show: Record<string, unknown>) =>
			v2.find((p) => p.name === name && Object.entries(show).every(([k, v]) => JSON.stringify(p.displayOptions?.show?.[k]) === JSON.stringify(v)))?.default;
		expect(defaultOf('recipientsSource', { resource: ['campaign'], operation: ['create'] })).toBe('items');
		expect(defaultOf('operation', { resource: ['chatMessage'] })).toBe('sendTemplate');
		expect(v2.some((p) => p.name === 'scheduledAt' && p.displayOptions?.show?.resource?.[0] === 'campaign')).toBe(true);
	});

	it('every placeholder of version 2 starts with "e.g." (n8n\'s UX guideline), except the "Add …" and "Select …" prompts', () => {
		const bare: string[] = [];
		const walk = (field: { name?: string; placeholder?: unknown; options?: unknown; values?: unknown; modes?: unknown }, path: string) => {
			if (typeof field.placeholder === 'string' && !/^(e\.g\. |Add |Select )/.test(field.placeholder)) bare.push(`${path}: ${field.placeholder}`);
			for (const key of ['options', 'values', 'modes'] as const) {
				const children = field[key];
				if (Array.isArray(children)) for (const c of children) if (typeof c === 'object' && c) walk(c, `${path}/${String(c.name)}`);
			}
		};
		for (const p of viewOf(2, description.properties)) walk(p, String(p.name));
		expect(bare).toEqual([]);
		const placeholder = (name: string, resource: string) =>
			viewOf(2, description.properties).find((p) => p.name === name && p.displayOptions?.show?.resource?.includes(resource))?.placeholder;
		expect(placeholder('phoneNumber', 'chatMessage')).toBe('e.g. +254712345678');
		expect(placeholder('phoneNumber', 'sms')).toBe('e.g. +254712345678');
	});
});
