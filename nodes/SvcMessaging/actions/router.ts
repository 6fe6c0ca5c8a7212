import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as campaign from './campaign';
import * as chatMessage from './chatMessage';
import * as chatTemplate from './chatTemplate';
import * as doNotSendList from './doNotSendList';
import { runOperation, type Operation } from './executor';
import * as senderId from './senderId';
import * as sms from './sms';

const resources = { account, campaign, chatMessage, chatTemplate, doNotSendList, senderId, sms } as unknown as Record<string, Record<string, unknown>>;

function isOperation(candidate: unknown): candidate is Operation {
	const op = candidate as Partial<Record<'execute' | 'preparer' | 'send', unknown>> | undefined;
	return typeof op?.execute === 'function' || (typeof op?.preparer === 'function' && typeof op?.send === 'function');
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.[operation];
	if (!isOperation(handler)) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported for the resource "${resource}"`);
	}
	return await runOperation(this, handler, this.getInputData());
}
