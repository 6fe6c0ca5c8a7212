/**
 * Light and dark icons (n8n's themed form `{ light, dark }`) of both nodes and both credentials:
 * each file is where n8n looks for it (next to the node's or credential's own file), is well-formed
 * SVG, and the dark one differs from the light one. That n8n 1.123.81 and 2.41.1 load and serve
 * them is checked in test/e2e/package.e2e.test.ts.
 */
import { readFileSync } from 'fs';
import { dirname, join } from 'path';

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Icon } from 'n8n-workflow';

import { SvcMessagingAccountApi } from '../credentials/SvcMessagingAccountApi.credentials';
import { SvcMessagingApi } from '../credentials/SvcMessagingApi.credentials';
import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';
import { SvcMessagingTrigger } from '../nodes/SvcMessaging/SvcMessagingTrigger.node';

const ROOT = dirname(__dirname);
const NODES = join(ROOT, 'nodes', 'SvcMessaging');
const CREDENTIALS = join(ROOT, 'credentials');

const owners: Array<[string, Icon | undefined, string]> = [
	['SVC Messaging', new SvcMessaging().description.icon, NODES],
	['SVC Messaging Trigger', new SvcMessagingTrigger().description.icon, NODES],
	['SVC Messaging API', new SvcMessagingApi().icon, CREDENTIALS],
	['SVC Messaging Account API', new SvcMessagingAccountApi().icon, CREDENTIALS],
];

/** The colours an SVG paints with (fill and stroke attributes), as #RRGGBB. */
function paints(svg: string): string[] {
	return [...svg.matchAll(/\b(?:fill|stroke)="#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"/g)].map((m) =>
		`#${m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1]}`.toUpperCase(),
	);
}

/** Relative luminance (WCAG) of a #RRGGBB colour. */
function luminance(hex: string): number {
	const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
	return (hi + 0.05) / (lo + 0.05);
};

describe.each(owners)('%s icon', (_name, icon, folder) => {
	it('has a light and a dark file, both file: paths, not the same file', () => {
		expect(icon).toEqual({ light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' });
	});

	it.each(['light', 'dark'] as const)('%s file is well-formed SVG 1.1 with a viewBox', (theme) => {
		const file = join(folder, (icon as Record<typeof theme, string>)[theme].replace(/^file:/, ''));
		const text = readFileSync(file, 'utf8');
		expect(XMLValidator.validate(text)).toBe(true);
		const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text) as Record<string, Record<string, string>>;
		expect(Object.keys(parsed)).toEqual(['svg']);
		expect(parsed.svg.xmlns).toBe('http://www.w3.org/2000/svg');
		expect(parsed.svg.viewBox).toMatch(/^0 0 \d+ \d+$/);
		expect(text).not.toMatch(/<script|on\w+=|href="http/i);
	});
});

describe('node and credential icons are the same pictures', () => {
	it.each(['svcMessaging.svg', 'svcMessaging.dark.svg'])('%s', (file) => {
		expect(readFileSync(join(CREDENTIALS, file), 'utf8')).toBe(readFileSync(join(NODES, file), 'utf8'));
	});
});

describe('the dark icon reads on the dark canvas', () => {
	// n8n's dark theme draws a node on about #2E2E2E; the light theme on white.
	const DARK_NODE = '#2E2E2E';
	const LIGHT_NODE = '#FFFFFF';
	const light = paints(readFileSync(join(NODES, 'svcMessaging.svg'), 'utf8'));
	const dark = paints(readFileSync(join(NODES, 'svcMessaging.dark.svg'), 'utf8'));

	it('the dark bubble stands out from a dark node at least as well as the light bubble from a white one', () => {
		// The first paint is the bubble (the rest are the dots inside it).
		expect(contrast(dark[0], DARK_NODE)).toBeGreaterThanOrEqual(contrast(light[0], LIGHT_NODE));
		expect(contrast(dark[0], DARK_NODE)).toBeGreaterThan(contrast(light[0], DARK_NODE));
	});

	it('paints only with stated hex colours (no currentColor or named colours the theme could change)', () => {
		for (const file of ['svcMessaging.svg', 'svcMessaging.dark.svg']) {
			const values = [...readFileSync(join(NODES, file), 'utf8').matchAll(/\b(?:fill|stroke)="([^"]*)"/g)].map((m) => m[1]);
			expect(values.length).toBeGreaterThanOrEqual(2);
			expect(values.filter((v) => !/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v))).toEqual([]);
		}
		expect(dark.length).toBe(light.length);
	});

	it('the dots stay readable inside the bubble in both', () => {
		expect(contrast(light[light.length - 1], light[0])).toBeGreaterThanOrEqual(3);
		expect(contrast(dark[dark.length - 1], dark[0])).toBeGreaterThanOrEqual(3);
	});
});
