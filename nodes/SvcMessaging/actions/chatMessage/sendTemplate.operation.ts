import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { defaultCountryOption, resendUnknownOutcomeOption } from '../common.descriptions';
import { doNotSendField, dryRunOption, idempotencyKeyOption, maxCreditsOption, rememberKeyOption, sendingHoursOption } from '../policyOptions';
import { onlyV2 } from '../versions';
import { chatNumberCheckOption, phoneNumberField, recipientTypeField, templateFields } from './send.operation';

/**
 * Version 2's Send Template: Send with Message Type "Template", as an operation of its own (as in
 * n8n's WhatsApp Business Cloud node). The item is read and sent by Send's code; the message type
 * follows from the operation (messageBody.ts).
 */
export { preparer, send } from './send.operation';

const EMPTY_PICKER_HINT =
	'Only APPROVED templates are listed. An empty list: create one with Chat Template → Create and wait for its approval (Chat Template → Get shows its status), or type the name of an approved template with By Name.';

const properties: INodeProperties[] = [
	{ ...phoneNumberField, placeholder: 'e.g. +254712345678' },
	recipientTypeField,
	...templateFields.map((field): INodeProperties => {
		if (field.name === 'template') return { ...field, hint: EMPTY_PICKER_HINT };
		if (field.name === 'templateLanguage') return { ...field, placeholder: 'e.g. en' };
		return field;
	}),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			defaultCountryOption,
			dryRunOption,
			idempotencyKeyOption,
			maxCreditsOption,
			chatNumberCheckOption,
			rememberKeyOption,
			sendingHoursOption(false),
			resendUnknownOutcomeOption,
		],
	},
	doNotSendField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['chatMessage'], operation: ['sendTemplate'] } },
	onlyV2(...properties),
);
