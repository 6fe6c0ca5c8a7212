import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getTemplate } from '../../api/chat';
import { failItem } from '../../rules/fields';
import { mapItems } from '../executor';
import { templateLocator } from './descriptions';

const properties: INodeProperties[] = [templateLocator('searchChatTemplates', 'The template to look up')];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['get'] } }, properties);

export function templateNameOf(ctx: IExecuteFunctions, i: number): string {
	const name = String(ctx.getNodeParameter('template', i, '', { extractValue: true }) ?? '').trim();
	if (!name) failItem(ctx.getNode(), i, '"Template" must not be empty: pick one from the list or type its name');
	return name;
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await mapItems(this, items, async (i) => {
		const template = await getTemplate(this, templateNameOf(this, i), i);
		// Always present, so that workflows can branch on them: null until reviewed.
		return { rejectedReason: null, approvedAt: null, ...template };
	});
}
