import type { INode } from 'n8n-workflow';

/**
 * Node version 2's error titles say what happened (n8n's guideline), led by `Item N: ` as the
 * refusals of the field rules are; the service's own words, what to do and the request's method and
 * path go to the description. Version 1 keeps its titles ("POST /api/sms/send-api failed: CODE –
 * message"), which saved workflows may test for.
 */
export const TITLES: Record<string, string> = {
	UNAUTHORIZED: 'The service refused the credential',
	BAD_REQUEST: 'The service refused the request',
	INSUFFICIENT_CREDITS: 'Not enough credits on the account',
	PAYLOAD_TOO_LARGE: 'Too many recipients in one call for the plan',
	INVALID_PHONE_NUMBER: 'The service refused the phone number',
	MESSAGE_TOO_LONG: 'The message is too long',
	INVALID_SENDER_ID: 'The service refused the sender ID',
	EMPTY_RECIPIENTS: 'The bulk send had no recipients',
	CHAT_OPT_IN_REQUIRED: 'The recipient has not opted in to chat messages',
	CHAT_NUMBER_NOT_REGISTERED: "The account's chat number is not registered",
	INVALID_MEDIA_URL: 'The service refused the media link',
	RATE_LIMIT_EXCEEDED: "The plan's request rate was exceeded",
	NOT_FOUND: 'The service found nothing with this ID',
	INVALID_CAMPAIGN_STATUS: 'The campaign cannot be changed in its status',
	TEMPLATE_ALREADY_EXISTS: 'A template with this name exists already',
	INVALID_TEMPLATE: 'The service refused the template',
	INVALID_CONTACT_GROUP: 'Unknown contact group',
};

/**
 * A sender ID refused for a number: the sender ID and the number's country (`country`, a name; the
 * service approves sender IDs per country), then the number.
 */
export function senderRefusedTitle(senderId: string, phoneNumber: string | undefined, country: string | undefined): string {
	const where = country ? ` for ${country}` : '';
	return `${TITLES.INVALID_SENDER_ID} "${senderId}"${where}${phoneNumber ? ` (${phoneNumber})` : ''}`;
}

export function titledErrors(node: INode): boolean {
	return node.typeVersion >= 2;
}

/** `Item 3: ` (as rules/errorText.ts itemPrefix), or nothing for an error of no one item. */
export const itemLead = (itemIndex: number | undefined) => (itemIndex === undefined ? '' : `Item ${itemIndex}: `);

/** The service's words ending in a full stop, so the hint after them reads as a new sentence. */
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

export const withRequest = (hint: string | undefined, request: string, serviceSaid?: string) =>
	`${serviceSaid ? `The service said: ${sentence(serviceSaid)} ` : ''}${hint ? `${hint} ` : ''}(Request: ${request}.)`;
