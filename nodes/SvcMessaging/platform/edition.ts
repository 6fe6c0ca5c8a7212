import type { Edition } from './seamTypes';

/**
 * What differs between the two packages built from this one source: the self-hosted package (this
 * file) and the n8n Cloud edition (`npm run build:cloud`, which compiles cloud/platform/edition.ts in
 * its place; README "Which package"). Type names differ so that both packages install side by side
 * in one n8n: a node type is `<package>.<name>`, and a credential type's name must be unique in n8n.
 */
export const EDITION = {
	packageName: 'n8n-nodes-svc-messaging',
	action: { name: 'svcMessaging', displayName: 'SVC Messaging' },
	trigger: { name: 'svcMessagingTrigger', displayName: 'SVC Messaging Trigger' },
	apiKeyCredential: { name: 'svcMessagingApi', displayName: 'SVC Messaging API' },
	accountCredential: { name: 'svcMessagingAccountApi', displayName: 'SVC Messaging Account API' },
	redis: true,
} as const satisfies Edition;

