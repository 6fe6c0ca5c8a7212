import type { Edition } from '../../nodes/SvcMessaging/platform/seamTypes';

/**
 * The n8n Cloud edition's names and parts (replaces nodes/SvcMessaging/platform/edition.ts in
 * `npm run build:cloud`). Every type name differs from the self-hosted package's, so both can be
 * installed in one n8n; display names say "Cloud" so that the two are told apart there.
 */
export const EDITION = {
	packageName: 'n8n-nodes-svc-messaging-cloud',
	action: { name: 'svcMessagingCloud', displayName: 'SVC Messaging Cloud' },
	trigger: { name: 'svcMessagingCloudTrigger', displayName: 'SVC Messaging Cloud Trigger' },
	apiKeyCredential: { name: 'svcMessagingCloudApi', displayName: 'SVC Messaging Cloud API' },
	accountCredential: { name: 'svcMessagingCloudAccountApi', displayName: 'SVC Messaging Cloud Account API' },
	/**
	 * n8n Cloud offers community nodes no Redis: no "Use Redis" on the credential, no Do-Not-Send List
	 * resource (the list kept in Redis; each send's Numbers option stays), no trigger option adding to it.
	 */
	redis: false,
} as const satisfies Edition;

