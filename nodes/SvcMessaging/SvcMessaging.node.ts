import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { versionDescription } from './actions/node.description';
import { router } from './actions/router';
import { chatTemplateListSearch, listSearch, resourceMapping } from './methods';

export class SvcMessaging implements INodeType {
	description: INodeTypeDescription = versionDescription;

	methods = { listSearch: { ...listSearch, ...chatTemplateListSearch }, resourceMapping };

	async execute(this: IExecuteFunctions) {
		return await router.call(this);
	}
}
