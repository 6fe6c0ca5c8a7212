import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteTemplate } from '../../api/chat';
import { mapItems } from '../executor';
import { templateLocator } from './descriptions';
import { templateNameOf } from './get.operation';

const properties: INodeProperties[] = [templateLocator('searchChatTemplates', 'The template to delete')];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['delete'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const name = templateNameOf(this, i);
		const data = await deleteTemplate(this, name, i);
		return { deleted: true, name: (data?.name as string | undefined) ?? name };
	});
}
