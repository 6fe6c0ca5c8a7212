/**
 * Hints for n8n's AI workflow builder on both nodes, in the shape of n8n-workflow 2.41's
 * `IBuilderHint` (the package compiles against n8n-workflow 1.120, which has no such type): only
 * that interface's fields, related nodes that are this package's other node, and search hints that
 * name what the builder needs to pick the node.
 */
import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';
import { SvcMessagingTrigger } from '../nodes/SvcMessaging/SvcMessagingTrigger.node';
import pkg from '../package.json';

/** The fields of `IBuilderHint` in n8n-workflow 2.41.0 (dist/esm/interfaces.d.ts). */
const BUILDER_HINT_FIELDS = ['inputs', 'outputs', 'searchHint', 'relatedNodes', 'extraTypeDefContent'];

type Described = { name: string; description: string; builderHint?: { searchHint?: string; relatedNodes?: Array<{ nodeType: string; relationHint: string }> } };
const action = new SvcMessaging().description as unknown as Described;
const trigger = new SvcMessagingTrigger().description as unknown as Described;

describe.each([
	['SVC Messaging', action, trigger],
	['SVC Messaging Trigger', trigger, action],
])('%s', (_name, node, other) => {
	it('has a builder hint with n8n-workflow 2.41\'s fields only', () => {
		expect(node.builderHint).toBeDefined();
		for (const field of Object.keys(node.builderHint!)) expect(BUILDER_HINT_FIELDS).toContain(field);
		expect(node.builderHint!.searchHint!.length).toBeGreaterThan(80);
	});

	it('relates it to the package\'s other node by its full type name', () => {
		expect(node.builderHint!.relatedNodes).toEqual([{ nodeType: `${pkg.name}.${other.name}`, relationHint: expect.stringMatching(/^.{40,}$/) }]);
	});
});

it('the action hint names the countries, the two outputs of Send and Wait and the number format; the trigger hint the events', () => {
	for (const word of ['Kenya', 'Ghana', 'Delivered', 'Not Delivered', 'E.164']) expect(action.builderHint!.searchHint).toContain(word);
	for (const word of ['delivered', 'failed', 'expired', 'Production URL']) expect(trigger.builderHint!.searchHint).toContain(word);
});

it('the trigger\'s description, which n8n\'s node panel shows for both nodes of the app, describes both', () => {
	expect(trigger.description).toMatch(/^Send SMS and chat messages with the SVC messaging service/);
	expect(trigger.description).toContain('delivery reports');
});
