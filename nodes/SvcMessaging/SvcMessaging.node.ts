import type { IExecuteFunctions, INodeType, INodeTypeDescription, IWebhookFunctions } from 'n8n-workflow';

import { versionDescription } from './actions/versionDescription';
import { actionBuilderHint } from './builderHints';
import { router } from './actions/router';
import { handleWaitingReport } from './actions/sms/deliveryReportWebhook';
import { isToolCall, runAsTool } from './aiTool/toolMode';
import { chatTemplateListSearch, listSearch, resourceMapping, svcMessagingApiTest } from './methods';

export class SvcMessaging implements INodeType {
	// Resources, operations and parameters: actions/versionDescription.ts (its name comes from
	// platform/edition.ts, so n8n's lint does not ask the file to be named after the node). Icon, subtitle
	// and AI-tool use are (also) stated here, on the class, where n8n's community-node lint reads a
	// node's description; `file:` icons are resolved from this file's folder.
	description: INodeTypeDescription = {
		...versionDescription,
		icon: { light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' },
		subtitle: versionDescription.subtitle,
		usableAsTool: true,
		...actionBuilderHint,
	};

	methods = { listSearch: { ...listSearch, ...chatTemplateListSearch }, resourceMapping, credentialTest: { svcMessagingApiTest } };

	async execute(this: IExecuteFunctions) {
		// As "SVC Messaging Tool" (AI Agent, MCP Server Trigger): refusals are the tool's result.
		if (isToolCall(this)) return await runAsTool(this, versionDescription.properties, async () => await router.call(this));
		return await router.call(this);
	}

	/** Delivery reports for "Send and Wait for Delivery" at a waiting execution's resume URL. */
	async webhook(this: IWebhookFunctions) {
		return await handleWaitingReport.call(this);
	}
}
