/** The service's endpoints (the spec's paths), used only by the functions of api/. */
export const PATHS = {
	sendSms: '/api/sms/send-api',
	message: (messageId: string) => `/api/sms/messages/${encodeURIComponent(messageId)}`,
	batch: (batchId: string) => `/api/sms/batches/${encodeURIComponent(batchId)}`,
	deliveryRates: '/api/sms/analytics/delivery-rates',
	senderIds: '/api/sms/sender-ids',
	campaigns: '/api/sms/campaigns',
	campaign: (id: string | number) => `/api/sms/campaigns/${encodeURIComponent(String(id))}`,
	chatMessages: '/api/chat/messages',
	chatTemplates: '/api/chat/templates',
	chatTemplate: (name: string) => `/api/chat/templates/${encodeURIComponent(name)}`,
	login: '/api/auth/login',
	balance: '/api/account/balance',
} as const;
