import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getTemplate } from '../../api/chat';
import { checkTemplateName } from '../../rules/templateMessage';
import { templateLocator } from './descriptions';

const properties: INodeProperties[] = [templateLocator('searchChatTemplates', 'The template to look up')];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['get'] } }, properties);

export function templateNameOf(ctx: IExecuteFunctions, i: number): string {
	return checkTemplateName(
		ctx.getNode(),
		i,
		ctx.getNodeParameter('template', i, '', { extractValue: true }),
		'"Template" must not be empty: pick one from the list or type its name',
	);
}

/** One item's lookup; the executor (actions/executor.ts) pairs, collects and reports. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const template = await getTemplate(this, templateNameOf(this, i), i);
	// Always present, so that workflows can branch on them: null until reviewed.
	return { rejectedReason: null, approvedAt: null, ...template };
}
