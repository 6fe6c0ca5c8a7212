/**
 * Values the spec states (Limits, resources, Events). Not assumptions: change only with the spec.
 * Choices for what the spec leaves "not shown" live in ./assumptions.ts.
 */

export const MAX_MESSAGE_CHARS = 1600;
export const GSM7_SEGMENT_SEPTETS = 160;
export const UNICODE_SEGMENT_UNITS = 70;
export const CREDITS_PER_SEGMENT = 1;
export const SENDER_ID_PATTERN = /^[A-Z0-9]{1,11}$/;
export const SIGNUP_CREDITS = 10;
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** Requests per second and bulk recipients per call; Enterprise is custom per key. */
export const PLAN_LIMITS = {
	free: { requestsPerSecond: 5, recipientsPerCall: 100 },
	starter: { requestsPerSecond: 20, recipientsPerCall: 1000 },
	business: { requestsPerSecond: 100, recipientsPerCall: 10000 },
} as const;

/** Supported SMS destinations (ISO code by calling code) and where numeric sender IDs are allowed. */
export const SMS_COUNTRIES: Record<string, string> = {
	'254': 'KE',
	'234': 'NG',
	'256': 'UG',
	'255': 'TZ',
	'250': 'RW',
	'233': 'GH',
};
export const NUMERIC_SENDER_COUNTRIES = ['KE'];

/** Delays before each of the 6 delivery attempts of a webhook event. */
export const WEBHOOK_RETRY_DELAYS_MS = [0, 30_000, 120_000, 600_000, 1_800_000, 7_200_000];

export const WEBHOOK_EVENTS = {
	PENDING: 'message.pending',
	SENT: 'message.sent',
	DELIVERED: 'message.delivered',
	FAILED: 'message.failed',
	EXPIRED: 'message.expired',
} as const;

export const CHAT_CAPTION_MAX = 1024;
export const CHAT_FILENAME_MAX = 240;
export const CHAT_MESSAGE_TYPES = ['text', 'image', 'document', 'video', 'template'] as const;
export const CHAT_RECIPIENT_TYPES = ['individual', 'group'] as const;

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE'] as const;
export const TEMPLATE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export const TEMPLATE_BODY_MAX = 1024;
export const TEMPLATE_BODY_MAX_VARIABLES = 25;
export const TEMPLATE_HEADER_TEXT_MAX = 60;
export const TEMPLATE_FOOTER_MAX = 60;
export const TEMPLATE_HEADER_FORMATS = ['TEXT', 'IMAGE', 'DOCUMENT', 'VIDEO'] as const;
export const TEMPLATE_BUTTON_CAPS: Record<string, number> = {
	QUICK_REPLY: 3,
	URL: 2,
	PHONE_NUMBER: 1,
	COPY_CODE: 1,
	OTP: 1,
};
export const AUTHENTICATION_ONLY_BUTTONS = ['COPY_CODE', 'OTP'];

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'COMPLETED', 'FAILED', 'PAUSED', 'CANCELLED'] as const;
