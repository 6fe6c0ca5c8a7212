import type { IHookFunctions } from 'n8n-workflow';

/**
 * `webhookMethods.default` of the trigger. The spec documents no API to create, list or delete
 * webhooks ("Webhook configuration … API endpoints: not shown"): the callback URL is set by hand in
 * the dashboard or per message as the send call's `webhookUrl`. So there is nothing to register
 * remotely. Each method reports success, so that n8n activates (and deactivates) the workflow and
 * listens on the URL; returning false from `checkExists` would only make n8n call `create`, which
 * could do nothing more.
 */
export const deliveryReportWebhookMethods = {
	default: {
		async checkExists(this: IHookFunctions): Promise<boolean> {
			return true;
		},
		async create(this: IHookFunctions): Promise<boolean> {
			return true;
		},
		async delete(this: IHookFunctions): Promise<boolean> {
			return true;
		},
	},
};
