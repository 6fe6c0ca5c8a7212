import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteTemplate } from '../../api/chat';
import { templateLocator } from './descriptions';
import { templateNameOf } from './get.operation';

const properties: INodeProperties[] = [templateLocator('searchChatTemplates', 'The template to delete')];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['delete'] } }, properties);

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const name = templateNameOf(this, i);
	const data = await deleteTemplate(this, name, i);
	return { deleted: true, name: (data?.name as string | undefined) ?? name };
}
