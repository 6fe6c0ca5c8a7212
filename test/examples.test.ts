/**
 * The example workflows (examples/) are what a new user imports: their SVC Messaging nodes are the
 * version the nodes panel adds (node version 2), and every parameter they hold is a field that
 * version shows for the node's resource and operation (a version 1 field, e.g. Message Type
 * "Template" or the campaign's typed Sender ID, would be ignored by version 2). Each credential the
 * form asks for is set. What the examples do is run in real n8n by test/e2e/editor.e2e.test.ts.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import { NodeHelpers, type INodeParameters, type INodeTypeDescription } from 'n8n-workflow';

import { LATEST_VERSION } from '../nodes/SvcMessaging/actions/versions';
import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: INodeParameters;
	credentials?: Record<string, unknown>;
}

const EXAMPLES = join(__dirname, '..', 'examples');
const description: INodeTypeDescription = new SvcMessaging().description;

const svcNodes = readdirSync(EXAMPLES)
	.filter((f) => f.endsWith('.json'))
	.flatMap((file) =>
		(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')).nodes as ExampleNode[])
			.filter((n) => /\.svcMessaging(Tool)?$/.test(n.type))
			.map((node): [string, ExampleNode] => [`${file} · ${node.name}`, node]),
	);

/** What version `typeVersion`'s form could not hold of a saved value: a hidden field changed, a choice or an option it lacks. */
function notInForm(shown: INodeParameters, key: string, value: unknown, typeVersion: number): string[] {
	const field = description.properties.find((p) => p.name === key && NodeHelpers.displayParameter(shown, p, { typeVersion }, description));
	if (!field) return [`${key}: not shown`];
	if (field.type === 'hidden' && value !== field.default) return [`${key}: hidden, saved as ${JSON.stringify(value)}`];
	const isExpression = typeof value === 'string' && value.startsWith('=');
	if (field.type === 'options' && !isExpression && !(field.options as Array<{ value: unknown }>).some((o) => o.value === value)) return [`${key}: no choice ${JSON.stringify(value)}`];
	if (field.type === 'collection' && value && typeof value === 'object') {
		const names = (field.options as Array<{ name: string }>).map((o) => o.name);
		return Object.keys(value).filter((k) => !names.includes(k)).map((k) => `${key}.${k}: no such option`);
	}
	return [];
}

describe('examples/', () => {
	it('have SVC Messaging nodes to check', () => {
		expect(svcNodes.length).toBeGreaterThanOrEqual(10);
	});

	it.each(svcNodes)('%s: node version 2, only fields version 2 shows, its credentials set', (_name, node) => {
		expect(node.typeVersion).toBe(LATEST_VERSION);
		const tool = node.type.endsWith('Tool');
		const ownParameters = Object.fromEntries(Object.entries(node.parameters).filter(([key]) => !(tool && ['toolDescription', 'maxMessagesPerExecution'].includes(key))));
		const shown = NodeHelpers.getNodeParameters(description.properties, ownParameters, true, false, { typeVersion: node.typeVersion }, description)!;
		expect(Object.keys(ownParameters).filter((key) => !(key in shown))).toEqual([]);
		expect(Object.entries(ownParameters).flatMap(([key, value]) => notInForm(shown, key, value, node.typeVersion))).toEqual([]);
		const asked = description.credentials!.filter((c) => NodeHelpers.displayParameter(shown, c, { typeVersion: node.typeVersion }, description)).map((c) => c.name);
		expect(Object.keys(node.credentials ?? {}).sort()).toEqual(asked.sort());
	});
});
