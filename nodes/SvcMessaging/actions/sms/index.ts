import type { INodeProperties } from 'n8n-workflow';

import * as getBatch from './getBatch.operation';
import * as getDeliveryRates from './getDeliveryRates.operation';
import * as getMessage from './getMessage.operation';
import * as send from './send.operation';
import * as sendAndWaitForDelivery from './sendAndWait.operation';
import * as sendBulk from './sendBulk.operation';

export { getBatch, getDeliveryRates, getMessage, send, sendAndWaitForDelivery, sendBulk };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sms'] } },
		options: [
			{
				name: 'Get Batch',
				value: 'getBatch',
				description: 'Get the delivery counts of a bulk send',
				action: 'Get an SMS batch',
			},
			{
				name: 'Get Delivery Rates',
				value: 'getDeliveryRates',
				description: 'Get delivery analytics for a period',
				action: 'Get SMS delivery rates',
			},
			{
				name: 'Get Message',
				value: 'getMessage',
				description: 'Get the status of one SMS',
				action: 'Get an SMS message',
			},
			{
				name: 'Send',
				value: 'send',
				description: 'Send one SMS per input item',
				action: 'Send an SMS',
			},
			{
				name: 'Send and Wait for Delivery',
				value: 'sendAndWaitForDelivery',
				description: 'Send one SMS per input item, wait until it is delivered or not, and continue on "Delivered" or "Not Delivered"',
				action: 'Send an SMS and wait for delivery',
			},
			{
				name: 'Send Bulk',
				value: 'sendBulk',
				description: 'Send one message to many recipients in as few calls as the plan allows',
				action: 'Send bulk SMS',
			},
		],
		default: 'send',
	},
	...send.description,
	...sendAndWaitForDelivery.description,
	...sendBulk.description,
	...getMessage.description,
	...getBatch.description,
	...getDeliveryRates.description,
];
