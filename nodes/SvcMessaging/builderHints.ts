import { EDITION } from './platform/edition';
import { nodeTypeOf } from './platform/nodeType';

/**
 * Hints for n8n's AI workflow builder: `builderHint` of a node description in n8n-workflow 2.x
 * (`IBuilderHint`: `searchHint`, `relatedNodes`). The package compiles against n8n-workflow 1.120,
 * the engine of n8n 1.123, whose `INodeTypeDescription` has no such field; the shape is therefore
 * declared here and spread into both descriptions. n8n 1 passes the unknown field through unused.
 */
interface RelatedNode {
	nodeType: string;
	relationHint: string;
}

interface BuilderHint {
	searchHint: string;
	relatedNodes: RelatedNode[];
}

const ACTION_NODE = nodeTypeOf(EDITION.action.name);
const TRIGGER_NODE = nodeTypeOf(EDITION.trigger.name);

export const actionBuilderHint: { builderHint: BuilderHint } = {
	builderHint: {
		searchHint:
			'Send SMS (one, bulk with per-recipient variables, scheduled campaigns) and chat template messages to mobile numbers in Kenya, Nigeria, Uganda, Tanzania, Rwanda and Ghana through the SVC messaging service; look up message status, delivery rates, sender IDs and the balance. SMS > Send and Wait for Delivery has two outputs, Delivered and Not Delivered, for a fallback without an IF node. Phone numbers in E.164 (+254712345678).',
		relatedNodes: [{ nodeType: TRIGGER_NODE, relationHint: 'Starts a workflow on each delivery report (delivered, failed, expired) of the messages this node sends' }],
	},
};

export const triggerBuilderHint: { builderHint: BuilderHint } = {
	builderHint: {
		searchHint:
			'Starts a workflow on SVC messaging service delivery reports of SMS: delivered, failed (with reason), expired, pending, sent. Put its Production URL in the dashboard or in SVC Messaging > SMS > Send > Delivery Report URL.',
		relatedNodes: [{ nodeType: ACTION_NODE, relationHint: 'Sends the SMS whose delivery reports start this trigger, and resends by chat when one is not delivered' }],
	},
};
