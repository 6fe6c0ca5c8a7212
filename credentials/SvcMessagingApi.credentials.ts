import type {
	IAuthenticateGeneric,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { EDITION } from '../nodes/SvcMessaging/platform/edition';

/** The strings that start with `prefix`, as a `between` display condition (see the sandbox notice). */
const startingWith = (prefix: string) => ({ from: prefix, to: `${prefix}\uffff` });

/** The Redis of "Use Redis": the shared rate limit, the send ledger, the keys and the do-not-send list. */
const REDIS_FIELDS: INodeProperties[] = [
	{
		displayName: 'Redis Host',
		name: 'redisHost',
		type: 'string',
		default: 'localhost',
		required: true,
		description:
			'Host name or IP address of the Redis server every n8n process can reach. A pasted redis:// or rediss:// URL works too: its user, password, port, database and TLS replace the fields below.',
	},
	{ displayName: 'Redis Port', name: 'redisPort', type: 'number', default: 6379 },
	{
		displayName: 'Redis User',
		name: 'redisUser',
		type: 'string',
		default: '',
		description: 'ACL user name (Redis 6+); leave empty for the default user',
	},
	{ displayName: 'Redis Password', name: 'redisPassword', type: 'string', typeOptions: { password: true }, default: '' },
	{
		displayName: 'Redis Database',
		name: 'redisDatabase',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0 },
		description: 'Database number (queue mode uses QUEUE_BULL_REDIS_DB, 0 by default; sharing it is fine)',
	},
	{ displayName: 'Redis SSL/TLS', name: 'redisTls', type: 'boolean', default: false, description: 'Whether to connect with TLS' },
	{
		displayName: 'Redis CA Certificate',
		name: 'redisCa',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		placeholder: '-----BEGIN CERTIFICATE-----',
		description: "PEM certificate of a private CA that signed the Redis server's certificate (as NODE_EXTRA_CA_CERTS would add); leave empty for the usual public CAs",
		displayOptions: { show: { redisTls: [true] } },
	},
	{
		displayName: 'Redis Reject Unauthorized Certificates',
		name: 'redisRejectUnauthorized',
		type: 'boolean',
		default: true,
		description: "Whether to refuse a Redis whose TLS certificate is not signed by a trusted CA or is for another name. Turn off only to test (as QUEUE_BULL_REDIS_TLS_VALIDATE_CERTIFICATE=false): anyone between n8n and Redis could then read the Redis password.",
		displayOptions: { show: { redisTls: [true] } },
	},
	{
		displayName: 'Redis TLS Server Name',
		name: 'redisServerName',
		type: 'string',
		default: '',
		description: "The name in the Redis server's certificate, when n8n reaches it by another name or an IP address (as QUEUE_BULL_REDIS_TLS_SERVERNAME); leave empty to check the certificate against Redis Host",
		displayOptions: { show: { redisTls: [true] } },
	},
	{
		displayName: 'Redis Cluster Nodes',
		name: 'redisClusterNodes',
		type: 'string',
		default: '',
		placeholder: 'redis-1:6379,redis-2:6379,redis-3:6379',
		description:
			"For a Redis Cluster: some of its nodes as host:port, comma-separated (as n8n's QUEUE_BULL_REDIS_CLUSTER_NODES). When set, Redis Host and Port are not used, and Redis Database must be 0.",
	},
	{
		displayName: 'Redis Prefix',
		name: 'redisPrefix',
		type: 'string',
		default: 'svc-messaging',
		description: "Start of this package's Redis keys, to keep them apart from n8n's own (bull:…). One account per prefix: every credential with this Redis and prefix shares the Do-Not-Send List and the Idempotency Keys (an account's rotated or other API keys too).",
	},
];

/** "Use Redis": its switch, a notice, and the Redis settings it shows. */
const USE_REDIS: INodeProperties[] = [
	{
		// The name stays sharedRateLimit: saved credentials keep their setting.
		displayName: 'Use Redis (Rate Limit, Sent Messages, Do-Not-Send List)',
		name: 'sharedRateLimit',
		type: 'boolean',
		default: false,
		description:
			"Whether to keep in Redis what every n8n process using this key must share: the plan's rate limit, the record of sent messages (so a Retry never sends twice), Idempotency Keys, the agents' message count and the Do-Not-Send List. Needed for the Do-Not-Send List resource and in queue mode.",
	},
	{
		displayName:
			'Use the Redis of n8n queue mode (QUEUE_BULL_REDIS_*) or any Redis 6+. Keys start with the Redis Prefix and carry a hash of the API key, never the key itself. Test checks this Redis too.',
		name: 'sharedRateLimitNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { sharedRateLimit: [true] } },
	},
	...REDIS_FIELDS.map((field) => ({ ...field, displayOptions: { show: { ...field.displayOptions?.show, sharedRateLimit: [true] } } })),
];

export class SvcMessagingApi implements ICredentialType {
	name = EDITION.apiKeyCredential.name;

	displayName = EDITION.apiKeyCredential.displayName;

	icon = { light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' } as const;

	documentationUrl = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the messaging service, without a trailing path',
			hint: "The service's API address from its developer documentation or the dashboard (where API keys are created); the same for both SVC Messaging credentials",
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Created in the dashboard under Settings → API Keys. Keys starting with svc_test_ are sandbox keys.',
		},
		{
			displayName:
				'This is a sandbox key (svc_test_): the service accepts requests but sends no real messages',
			name: 'sandboxNotice',
			type: 'notice',
			default: '',
			// Neither `regex` nor `startsWith`: n8n checks a regex in a vm with a 250 ms timeout each time it loads the
			// credential, and on a busy machine that failed an execution ("Regular expression execution timed out",
			// n8n 1.123.81 in CI); n8n 1's editor calls startsWith on the empty key of a new form (a TypeError). A
			// string between the prefix and the prefix + U+FFFF starts with the prefix; no method is called.
			displayOptions: { show: { apiKey: [{ _cnd: { between: startingWith('svc_test_') } }] } },
		},
		{
			// Once saved, the editor shows n8n's placeholder instead of the key (CREDENTIAL_BLANKING_VALUE
			// in n8n's constants), so the notice above cannot read the key any more; this one says what to check.
			displayName:
				'The saved API key is hidden here. A key starting with svc_test_ is a sandbox key: the service accepts requests but sends no real messages, and the node\'s results say sandbox: true.',
			name: 'sandboxSavedNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { apiKey: [{ _cnd: { between: startingWith('__n8n_BLANK_VALUE_') } }] } },
		},
		{
			displayName: 'Plan',
			name: 'plan',
			type: 'options',
			default: 'free',
			description:
				"The account's plan. It sets the request rate and the recipients per bulk call that the node keeps to.",
			hint: "Pick the plan the SVC Messaging dashboard shows for the account (its billing page). A plan above the account's sends faster and in bigger bulk calls than the account may: the service answers 429 Too Many Requests (the node waits and retries) or refuses the call. A lower plan only sends slower.",
			options: [
				{ name: 'Free (5 Requests/s, 100 Recipients per Call)', value: 'free' },
				{ name: 'Starter (20 Requests/s, 1,000 Recipients per Call)', value: 'starter' },
				{ name: 'Business (100 Requests/s, 10,000 Recipients per Call)', value: 'business' },
				{ name: 'Enterprise (Custom Limits)', value: 'enterprise' },
			],
		},
		{
			displayName: 'Requests per Second',
			name: 'requestsPerSecond',
			type: 'number',
			default: 100,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { plan: ['enterprise'] } },
			description: 'The rate agreed for your enterprise plan',
		},
		{
			displayName: 'Recipients per Call',
			name: 'recipientsPerCall',
			type: 'number',
			default: 10000,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { plan: ['enterprise'] } },
			description: 'The bulk recipients per call agreed for your enterprise plan',
		},
		{
			displayName: 'How the Service Counts the Rate',
			name: 'rateLimitReading',
			type: 'options',
			default: 'learn',
			description: 'How the node reads "N requests per second", which the service\'s documentation leaves open',
			hint: 'Keep Learn unless you know: the node tests the service with one early request, then sends at the plan\'s full rate where the service allows it, or keeps the strict reading for this key (remembered, in Redis too; two 429 Too Many Requests at most where the service counts strictly). One API key in two credentials that read it differently: the strict reading.',
			options: [
				{
					name: 'Learn (Plan\'s Rate Where the Service Allows It)',
					value: 'learn',
					description: 'Strict until one early request shows how the service counts: then N requests spaced over each second, or never N + 1 in any 1,000 ms for this key',
				},
				{
					name: 'Per Second or Token Bucket (Plan\'s Rate)',
					value: 'spaced',
					description: 'N requests spaced over each second, always; a 429 is waited out',
				},
				{
					name: 'Strict (Never N + 1 in Any 1,000 ms)',
					value: 'strict',
					description: 'About 91–93 % of the plan at a 250 ms round trip, and no 429 from any service',
				},
			],
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'The optional secret set on the Delivery Reports webhook in the dashboard. When set, the SVC Messaging Trigger rejects deliveries without a valid signature.',
		},
		// An edition without Redis (n8n Cloud: platform/edition.ts) shows none of it.
		...(EDITION.redis ? USE_REDIS : []),
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
			},
		},
	};

	// Tested by the SVC Messaging node (testedBy: methods/credentialTest.ts): the key, then its Redis when "Use Redis" is on.
}
