import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkPhone } from '../../rules/phone';
import { doNotSendStore, type DoNotSendStore } from '../../sending/policies/doNotSendStore';
import { ledgerError } from '../../sending/recovery';
import { getServiceCredentials } from '../../transport/credentials';
import { INVALID_INPUT, withErrorCode } from '../../transport/errors';
import { RedisUnavailable, SHARED_LIMIT_SETTING, sharedLimitOf } from '../../transport/redis';
import { defaultCountryOption } from '../common.descriptions';

/** Add, Remove and Check: the number, E.164 or national with Default Country. */
export const numberFields: INodeProperties[] = [
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +254712345678',
		description: 'The number, in E.164 format or national format with Default Country set. It is kept in E.164, so 0712… and +254712… are one number.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [defaultCountryOption],
	},
];

/** Item `i`'s number in E.164 (any country: chat reaches every one), or its error naming the field. */
export function numberOf(ctx: IExecuteFunctions, i: number): string {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	return checkPhone(ctx.getNode(), i, ctx.getNodeParameter('phoneNumber', i, ''), { defaultCountry: options.defaultCountry, numberCheck: 'complete' }, 'complete');
}

/**
 * Runs `use` on the list in the credential's shared Redis. Without one the list has nowhere to
 * live: the error says where to turn it on, or how to hand each send its numbers instead.
 */
export async function withList<T>(ctx: IExecuteFunctions, i: number, use: (store: DoNotSendStore) => Promise<T>): Promise<T> {
	const node = ctx.getNode();
	const shared = sharedLimitOf(await getServiceCredentials.call(ctx, 'apiKey'));
	if (!shared) {
		const error = new NodeOperationError(node, "The do-not-send list is kept in the credential's shared Redis, and this credential has none", {
			itemIndex: i,
			description: `Turn on ${SHARED_LIMIT_SETTING} and enter the Redis settings (every send then checks the list), or give each send its numbers in "Do-Not-Send List → Numbers" (e.g. from an n8n Data Table).`,
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	try {
		return await use(await doNotSendStore(shared));
	} catch (error) {
		if (error instanceof RedisUnavailable) throw ledgerError(node, error, i);
		throw new NodeOperationError(node, error as Error, { itemIndex: i });
	}
}
