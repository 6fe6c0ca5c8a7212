import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_AGENT_MESSAGE_CAP, CAPPED_OPERATIONS } from '../aiTool/agentCap';
import { onlyV2 } from './versions';

/**
 * What "SVC Messaging Tool" tells a model, per operation. n8n shows these as the tool's
 * Description (prefilled, editable) and sends them to the AI Agent or MCP client as the tool's
 * description. Because this node defines `toolDescription` itself, n8n adds neither its own
 * Description field nor its "Set Automatically" selector (whose text would only be "Send an SMS in
 * SVC Messaging"). Everything here is shown only in the tool variant (`@tool`).
 *
 * Each text says what the operation does, what it needs from the model (by meaning: the argument
 * names are the ones the workflow's `$fromAI()` calls choose) and what it returns, including the
 * shape of a refusal (`success: false`, `errorMessage`, `field`, `fix`).
 */
const REFUSAL =
	'If the input is wrong or the service refuses, the result is {success: false, errorCode, errorMessage, field, fix} instead: correct the named field as the fix says, or tell the user.';

const SEND_LIMIT =
	'A number on the do-not-send list is not sent (the result has suppressed true and the reason): do not retry it. A limit on messages per run applies: once it is reached the tool refuses with errorCode MESSAGE_CAP_REACHED; then stop sending and tell the user.';

const PHONE =
	"the recipient's mobile number in international format: + and country code, without the national leading 0 (e.g. +254712345678 for Kenya; Nigeria +234, Uganda +256, Tanzania +255, Rwanda +250, Ghana +233). A national number such as 0712345678 works only when the tool's Default Country is set";

export const TOOL_DESCRIPTIONS: Record<string, Record<string, string>> = {
	sms: {
		send: [
			'Sends one SMS to one phone number through the SVC messaging service. This sends a real, charged message.',
			`Needs: ${PHONE}; and the message text (up to 1600 characters; one credit per 160-character segment, or per 70 characters when the text has emoji or non-Latin letters).`,
			'Returns: accepted (true), messageId (keep it to check delivery with an SMS Get Message tool), status (PENDING at first), phoneNumber as sent, segments, creditsUsed, creditsRemaining.',
			`Do not call it again for a message that returned a messageId: that message was sent. ${SEND_LIMIT} ${REFUSAL}`,
		].join(' '),
		sendAndWaitForDelivery: [
			'Sends one SMS to one phone number through the SVC messaging service and waits until it is delivered or has finally failed (or the wait times out), then answers. This sends a real, charged message; the answer can take a while.',
			`Needs: ${PHONE}; and the message text (up to 1600 characters).`,
			'Returns: accepted, messageId, phoneNumber, status (DELIVERED, FAILED or EXPIRED; still SENT or PENDING with timedOut true when the wait ran out), deliveredAt, and for a failure its reason.',
			`Do not call it again for a message that returned a messageId. ${SEND_LIMIT} ${REFUSAL}`,
		].join(' '),
		sendBulk: [
			'Sends the same SMS text to several phone numbers in one go through the SVC messaging service. This sends real, charged messages, one per recipient.',
			`Needs: the recipients (each ${PHONE}), and the message text (up to 1600 characters; {{name}} placeholders are filled per recipient when the recipients carry variables).`,
			'Returns one result per recipient: accepted, messageId, phoneNumber, batchId (for a Get Batch tool), or accepted false with errorCode and errorMessage for a recipient the service refused.',
			`Nothing is sent if any number is invalid. ${SEND_LIMIT} ${REFUSAL}`,
		].join(' '),
		getMessage: [
			'Looks up one SMS sent earlier: its delivery status. Sends nothing.',
			'Needs: the messageId that a send returned.',
			'Returns: messageId, phoneNumber, message, status (PENDING, SENT, DELIVERED, FAILED or EXPIRED), senderId, segments, creditsUsed, createdAt, sentAt and deliveredAt (null until delivered).',
			`A message is usually final within seconds to minutes; PENDING or SENT means not yet. ${REFUSAL}`,
		].join(' '),
		getBatch: [
			'Looks up a bulk SMS send by its batchId: how many of its messages are delivered, failed or still pending. Sends nothing.',
			'Needs: the batchId that a bulk send returned.',
			`Returns: batchId, status (PROCESSING until every message is final, then COMPLETED), total, delivered, failed, expired, pending, completedAt. ${REFUSAL}`,
		].join(' '),
		getDeliveryRates: [
			'Reports SMS delivery analytics of the account for a period. Sends nothing.',
			'Needs: optionally a start and an end date (YYYY-MM-DD); the default is the last 30 days.',
			`Returns: period, totalSent, delivered, failed, expired, deliveryRate (percent), averageDeliveryTime. ${REFUSAL}`,
		].join(' '),
	},
	senderId: {
		getAll: [
			'Lists the sender IDs of the account (the name a recipient sees as the sender of an SMS) and the countries each is approved for. Sends nothing.',
			`Needs: nothing (optionally a country or status filter). Returns one item per sender ID: senderId, status, type, countries (ISO codes). ${REFUSAL}`,
		].join(' '),
	},
	account: {
		getBalance: [
			'Reports the SVC messaging account balance. Sends nothing.',
			'Needs: nothing.',
			`Returns: credits (1 credit per SMS segment, 1 per chat message) and updatedAt. ${REFUSAL}`,
		].join(' '),
	},
	chatMessage: {
		send: [
			'Sends one chat message (text, image, document, video, or an approved template) to one phone number through the SVC messaging service. This sends a real, charged message.',
			`Needs: ${PHONE}; plus what the tool is set up for: the text, the https media link, or the template's variable values. The recipient must have opted in to chat messages; a conversation the recipient has not started needs an approved template.`,
			'Returns: accepted (true), messageId, status, phoneNumber, channel, creditsUsed, creditsRemaining.',
			`Do not call it again for a message that returned a messageId. ${SEND_LIMIT} ${REFUSAL}`,
		].join(' '),
	},
	chatTemplate: {
		create: [
			'Creates a chat message template and submits it for review (it starts PENDING; only APPROVED templates can be sent). Sends no message.',
			`Needs: a unique template name, the category, the language and the components (body text with {{1}}, {{2}} variables). Returns the template with its status. ${REFUSAL}`,
		].join(' '),
		get: `Looks up one chat template by name: its status (PENDING, APPROVED, REJECTED with a reason), language, category and components (with its {{n}} variables). Sends nothing. Needs: the template name (case-sensitive). ${REFUSAL}`,
		getAll: `Lists the chat templates of the account with their name, status, language and category (optionally filtered by status, category or language). Sends nothing. ${REFUSAL}`,
		delete: `Deletes a chat template by name. Sends nothing. Needs: the exact template name. Returns {name, deleted: true}. ${REFUSAL}`,
	},
	doNotSendList: {
		add: `Puts a phone number on the do-not-send list (the person opted out): no SVC Messaging send will message it. Sends nothing. Needs: ${PHONE}. Returns: phoneNumber (E.164), onDoNotSendList (true), added (false when it was listed already). ${REFUSAL}`,
		check: `Tells whether a phone number is on the do-not-send list. Sends nothing. Needs: ${PHONE}. Returns: phoneNumber (E.164) and onDoNotSendList (true or false). ${REFUSAL}`,
		getAll: `Lists the phone numbers on the do-not-send list, one result per number (phoneNumber). Sends nothing. Needs: nothing (optionally a limit). ${REFUSAL}`,
		remove: `Takes a phone number off the do-not-send list (only when the person asked to receive messages again). Sends nothing. Needs: ${PHONE}. Returns: phoneNumber, onDoNotSendList (false), removed (false when it was not listed). ${REFUSAL}`,
	},
	campaign: {
		create: `Creates an SMS campaign (one message to a list of numbers or contact groups); without a scheduled time it stays a DRAFT until sent. Needs: a name, the message text, the recipients and optionally a future scheduled time. Returns the campaign with its id and status. ${REFUSAL}`,
		get: `Looks up one SMS campaign by id: status (DRAFT, SCHEDULED, SENDING, COMPLETED, CANCELLED, FAILED), recipients, schedule and delivery counts. Sends nothing. ${REFUSAL}`,
		getAll: `Lists the SMS campaigns of the account with their id, name and status. Sends nothing. ${REFUSAL}`,
		update: `Changes a DRAFT or SCHEDULED SMS campaign (name, message, recipients, schedule). Needs: the campaign id and the fields to change. Returns the updated campaign. ${REFUSAL}`,
		delete: `Deletes an SMS campaign that is not being sent. Needs: the campaign id. Returns {id, deleted: true}. ${REFUSAL}`,
		sendNow: `Starts sending a DRAFT or SCHEDULED SMS campaign to all its recipients at once: real, charged messages. Needs: the campaign id. Returns the campaign with status SENDING. ${REFUSAL}`,
		cancel: `Cancels a DRAFT or SCHEDULED SMS campaign so it is never sent. Needs: the campaign id. Returns the campaign with status CANCELLED. ${REFUSAL}`,
	},
};

const descriptionFields: INodeProperties[] = Object.entries(TOOL_DESCRIPTIONS).flatMap(([resource, operations]) =>
	Object.entries(operations).map(
		([operation, text]): INodeProperties => ({
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: text,
			required: true,
			typeOptions: { rows: 4 },
			description:
				'What the AI agent or MCP client is told this tool does. Prefilled for the operation; describe the arguments your $fromAI() fields ask for if you change them.',
			displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
		}),
	),
);

/** Shown only in the tool variant, for the operations that send (see helpers/agentCap.ts). */
const capFields: INodeProperties[] = Object.entries(CAPPED_OPERATIONS).map(
	([resource, operations]): INodeProperties => ({
		displayName: 'Max Messages per Execution',
		name: 'maxMessagesPerExecution',
		type: 'number',
		default: DEFAULT_AGENT_MESSAGE_CAP,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		description:
			'The most messages the SVC Messaging tools may send in one execution of this workflow, over all their calls together (an AI Agent run is one execution; with the MCP Server Trigger each tool call is its own execution). A call that would go past it is refused and sends nothing. 0 = no limit.',
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: operations } },
	}),
);

/** What a model is told Send Template (version 2) does. */
export const SEND_TEMPLATE_TOOL_DESCRIPTION = `Sends one approved chat template message to one phone number through the SVC messaging service. This sends a real, charged message. Needs: ${PHONE}; and the values of the template's variables. A template is the only way to start a conversation with a recipient who has not written first. Returns: accepted (true), messageId, status, phoneNumber, templateName, text (the message as sent), templateVariables, creditsUsed, creditsRemaining. Do not call it again for a message that returned a messageId. ${SEND_LIMIT} ${REFUSAL}`;

/** Version 2's Send Template, as a tool: its description and the same message cap. */
const sendTemplateFields: INodeProperties[] = onlyV2(
	{
		...descriptionFields.find((f) => f.displayOptions?.show?.resource?.[0] === 'chatMessage')!,
		default: SEND_TEMPLATE_TOOL_DESCRIPTION,
		displayOptions: { show: { '@tool': [true], resource: ['chatMessage'], operation: ['sendTemplate'] } },
	},
	{ ...capFields.find((f) => f.displayOptions?.show?.resource?.[0] === 'chatMessage')!, displayOptions: { show: { '@tool': [true], resource: ['chatMessage'], operation: ['sendTemplate'] } } },
);

export const toolProperties: INodeProperties[] = [...descriptionFields, ...capFields, ...sendTemplateFields];
