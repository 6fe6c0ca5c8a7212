import type { INodeProperties } from 'n8n-workflow';

import { EDITION } from '../platform/edition';

export const DEFAULT_MAX_BODY_KB = 64;

export interface TriggerOptions {
	addBlacklisted?: boolean;
	ignoreDuplicates?: boolean;
	includeRawPayload?: boolean;
	maxBodySizeKb?: number;
}

const ADD_BLACKLISTED: INodeProperties = {
	displayName: 'Add Blacklisted Numbers to the Do-Not-Send List',
	name: 'addBlacklisted',
	type: 'boolean',
	default: false,
	description:
		"Whether to put the number of a report that failed with BLACKLISTED on the do-not-send list in the credential's shared Redis, which every send with that credential checks (whatever Events are selected)",
	hint: "Needs the credential's Redis (Use Redis)",
};

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"Use this node's Production URL in one of two ways: paste it into the dashboard's Delivery Reports webhook (it then receives reports of every message of the account), or set it as the Delivery Report URL of an SMS Send step (reports of those messages only). The service has no API to register webhooks, so activating the workflow registers nothing.",
		name: 'webhookUsageNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName:
			'Signatures are checked with the Webhook Secret of the selected credential, which must be the secret set on the webhook in the dashboard. With no credential, or one with an empty Webhook Secret, every delivery is accepted without a signature check.',
		name: 'signatureNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['message.delivered', 'message.expired', 'message.failed'],
		description:
			'The delivery-report events that start the workflow. Others are acknowledged and ignored.',
		options: [
			{
				name: 'Message Delivered',
				value: 'message.delivered',
				description: 'The message was delivered to the recipient',
			},
			{
				name: 'Message Expired',
				value: 'message.expired',
				description: "The message was not delivered within the carrier's window",
			},
			{
				name: 'Message Failed',
				value: 'message.failed',
				description: 'Delivery failed; the output carries the reason code and message',
			},
			{
				name: 'Message Pending',
				value: 'message.pending',
				description: 'The message was accepted and queued',
			},
			{
				name: 'Message Sent',
				value: 'message.sent',
				description: 'The message was submitted to the carrier',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			// The list is kept in Redis: an edition without it (n8n Cloud) has no list to add to.
			...(EDITION.redis ? [ADD_BLACKLISTED] : []),
			{
				displayName: 'Ignore Duplicates',
				name: 'ignoreDuplicates',
				type: 'boolean',
				default: true,
				description:
					'Whether to start no execution for a report already received (same message ID and event), as happens when the service retries a delivery',
			},
			{
				displayName: 'Include Raw Payload',
				name: 'includeRawPayload',
				type: 'boolean',
				default: false,
				description: 'Whether to add the body as received under "raw"',
			},
			{
				displayName: 'Max Body Size (KB)',
				name: 'maxBodySizeKb',
				type: 'number',
				default: DEFAULT_MAX_BODY_KB,
				typeOptions: { minValue: 1 },
				description:
					'Larger bodies are rejected with HTTP 400. A delivery report is well under 1 KB.',
			},
		],
	},
];
