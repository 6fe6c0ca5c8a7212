import type { INodeProperties } from 'n8n-workflow';

import { EDITION } from '../platform/edition';

/*
 * The send policies' fields (sending/policies/policies.ts and the send round apply them to every sending
 * operation): Dry Run, Idempotency Key and how long it is remembered, Max Credits, Sending Hours and
 * the Do-Not-Send List.
 */

/** Every sending operation (sending/policies/policies.ts): priced, checked, and nothing posted. */
export const dryRunOption: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to check and price every message without sending anything: each output item shows what would be sent, its encoding, segments, credits, sender and send time (dryRun: true), and a hint shows the total',
	hint: 'Nothing is sent and nothing is charged while this is on',
};

/** Every sending operation (sending/keys/idempotency.ts): one message per business event. */
export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'order-{{ $json.orderNumber }}-shipped',
	description:
		'A name for the business event this message is for: one per item (the same key on several items of one execution is refused). A second send with the same key on the same account, from any execution or workflow and with any of its API keys, sends nothing and outputs the first result (alreadySent: true, its message ID, when and in which execution).',
	hint: EDITION.redis
		? 'E.g. order-{{ $json.id }}-shipped. Keys belong to the account, not the API key: a rotated key keeps them (sandbox keys have their own). With the credential\'s Redis, an account is its Redis Prefix, as for the Do-Not-Send List; without it, the credential (rotate the key inside it); across n8n processes (queue mode), and across workflows after n8n restarts, this needs that Redis.'
		: 'E.g. order-{{ $json.id }}-shipped. Keys belong to the account\'s credential, not the API key: a key rotated inside the credential keeps them (sandbox keys have their own). This node keeps its keys across n8n restarts; across workflows a key holds until n8n restarts.',
};

/** With Idempotency Key: how long a key is remembered. */
export const rememberKeyOption: INodeProperties = {
	displayName: 'Remember Key For (Hours)',
	name: 'rememberKeyHours',
	type: 'number',
	default: 24,
	typeOptions: { minValue: 1, maxValue: 72 },
	description: 'How long an Idempotency Key holds back a second send: 1 to 72 hours',
};

/** Every sending operation (sending/policies/policies.ts): the run's credit estimate must not exceed it. */
export const maxCreditsOption: INodeProperties = {
	displayName: 'Max Credits',
	name: 'maxCredits',
	type: 'number',
	default: 100,
	typeOptions: { minValue: 0 },
	description:
		'Stop before sending anything when this execution\'s messages would cost more credits than this (one per SMS segment; one per chat message). The output hint shows the credits used against it.',
	hint: 'Counts every message of the run, placeholders filled; a campaign to contact groups cannot be estimated and is refused',
};

/** What Sending Hours does with a message outside them; the first only where the send can be scheduled. */
const OUTSIDE_HOURS = [
	{
		name: 'Schedule for the Next Opening',
		value: 'schedule',
		description: 'Sets Scheduled Time to the next opening (a Scheduled Time of your own inside the quiet hours is moved)',
	},
	{ name: 'Send Anyway', value: 'send' },
	{ name: 'Skip', value: 'skip', description: 'The item is output as not sent (skipped: true), with the next opening' },
];

const OUTSIDE_SCHEDULE: INodeProperties = {
	displayName: 'Outside Sending Hours',
	name: 'outside',
	type: 'options',
	default: 'schedule',
	options: OUTSIDE_HOURS,
};

const OUTSIDE_NO_SCHEDULE: INodeProperties = {
	displayName: 'Outside Sending Hours',
	name: 'outside',
	type: 'options',
	default: 'skip',
	options: [
		{ name: 'Send Anyway', value: 'send' },
		{ name: 'Skip', value: 'skip', description: 'The item is output as not sent (skipped: true), with the next opening' },
	],
};

const DAY_NAMES = ['Friday', 'Monday', 'Saturday', 'Sunday', 'Thursday', 'Tuesday', 'Wednesday'];
const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/**
 * Every sending operation but campaigns (sending/policies/quietHours.ts). `canSchedule`: SMS Send and Send
 * Bulk can defer a message to the next opening; chat has no schedule, Send and Wait no wait for one.
 */
export const sendingHoursOption = (canSchedule: boolean): INodeProperties => ({
	displayName: 'Sending Hours',
	name: 'sendingHours',
	type: 'fixedCollection',
	// Filled: adding the option shows its fields at once (an empty one asks for a second click, "Add Sending Hours").
	default: { hours: { days: [...ALL_DAYS], from: '08:00', until: '20:00', outside: canSchedule ? 'schedule' : 'skip', timeZone: '' } },
	placeholder: 'Add Sending Hours',
	description:
		"Send only within these hours of the recipient's local time, told by the number's country (Kenya, Uganda, Tanzania UTC+3; Rwanda UTC+2; Nigeria UTC+1; Ghana UTC+0); other numbers use Time Zone, else the workflow's time zone",
	options: [
		{
			name: 'hours',
			displayName: 'Hours',
			values: [
				{
					displayName: 'Allowed Days',
					name: 'days',
					type: 'multiOptions',
					default: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
					options: DAY_NAMES.map((name) => ({ name, value: name.toLowerCase() })),
					description: 'Local days on which messages may go out (hours past midnight count to the day they began)',
				},
				{
					displayName: 'Allowed From',
					name: 'from',
					type: 'string',
					default: '08:00',
					placeholder: 'e.g. 08:00',
					description: 'Local time (HH:MM, 24-hour) from which messages may go out',
				},
				{
					displayName: 'Allowed Until',
					name: 'until',
					type: 'string',
					default: '20:00',
					placeholder: 'e.g. 20:00',
					description: 'Local time (HH:MM) from which they may no longer go out. Earlier than Allowed From: the hours span midnight.',
				},
				canSchedule ? OUTSIDE_SCHEDULE : OUTSIDE_NO_SCHEDULE,
				{
					displayName: 'Time Zone',
					name: 'timeZone',
					type: 'string',
					default: '',
					placeholder: 'e.g. Africa/Nairobi',
					description:
						"Only for numbers outside Kenya, Uganda, Tanzania, Rwanda, Nigeria and Ghana (their zones are known from the number) and a campaign's contact groups: an IANA name such as Africa/Cairo or Europe/London, mappable per item. Empty: the workflow's time zone.",
				},
			],
		},
	],
	hint: 'Judged in the recipient\'s time, not n8n\'s: 20:00 in Lagos is 22:00 in Nairobi',
});

/**
 * Every sending operation (sending/policies/doNotSend.ts): numbers never sent to, handed over by the
 * workflow. Outside Options on purpose: Options are read per item, and a list mapped from a Data
 * Table's rows must be evaluated once per run, not once per item.
 */
export const doNotSendField: INodeProperties = {
	displayName: 'Do-Not-Send List',
	name: 'doNotSend',
	type: 'fixedCollection',
	default: {},
	placeholder: 'Add Do-Not-Send Numbers',
	description:
		EDITION.redis
			? "Numbers never sent to: a listed number's item is output with suppressed: true and the reason, not as an error. With the credential's shared Redis, the list kept there (Do-Not-Send List resource) is always checked too."
			: "Numbers never sent to: a listed number's item is output with suppressed: true and the reason, not as an error. Keep the list in an n8n Data Table and map its numbers here.",
	options: [
		{
			name: 'list',
			displayName: 'List',
			values: [
				{
					displayName: 'Numbers',
					name: 'numbers',
					type: 'string',
					default: '',
					placeholder: "e.g. {{ $('Opt-Outs').all().map(row => row.json.phone) }}",
					description:
						'Numbers separated by commas or new lines, or an expression giving an array (e.g. the rows of an n8n Data Table). Read once per execution, from the first item. E.164, or national with Default Country set.',
				},
			],
		},
	],
};
