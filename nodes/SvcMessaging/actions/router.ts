import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as campaign from './campaign';
import * as chatMessage from './chatMessage';
import * as chatTemplate from './chatTemplate';
import * as senderId from './senderId';
import * as sms from './sms';

type Operation =
	| { execute: (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>; multipleOutputs?: false }
	| { execute: (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[][]>; multipleOutputs: true };

const resources = { account, campaign, chatMessage, chatTemplate, senderId, sms } as unknown as Record<
	string,
	Record<string, Operation | unknown>
>;

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.[operation] as Operation | undefined;
	if (!handler || typeof handler.execute !== 'function') {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported for the resource "${resource}"`);
	}
	if (handler.multipleOutputs) return await handler.execute.call(this, items);
	return [await handler.execute.call(this, items)];
}
