/**
 * What differs between the two packages built from this one source: the self-hosted package (this
 * file) and the n8n Cloud edition (`npm run build:cloud`, which compiles cloud/platform/edition.ts in
 * its place; README "Which package"). Type names differ so that both packages install side by side
 * in one n8n: a node type is `<package>.<name>`, and a credential type's name must be unique in n8n.
 */
export const EDITION = {
	/** the npm package: the first half of each node type (`<package>.<name>`) */
	packageName: 'n8n-nodes-svc-messaging',
	action: { name: 'svcMessaging', displayName: 'SVC Messaging' },
	trigger: { name: 'svcMessagingTrigger', displayName: 'SVC Messaging Trigger' },
	apiKeyCredential: { name: 'svcMessagingApi', displayName: 'SVC Messaging API' },
	accountCredential: { name: 'svcMessagingAccountApi', displayName: 'SVC Messaging Account API' },
	/**
	 * Whether Redis is offered: the credential's "Use Redis" and its fields, the Do-Not-Send List
	 * resource (the list kept in Redis) and the trigger's "Add BLACKLISTED Numbers to the List".
	 */
	redis: true,
} as const;

/** A node type's full name as workflows and n8n's AI builder name it. */
export const nodeTypeOf = (name: string): string => `${EDITION.packageName}.${name}`;
