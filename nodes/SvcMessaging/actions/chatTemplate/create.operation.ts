import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { z } from 'zod';

import { createTemplate } from '../../api/chat';
import { keepFixedHint } from '../../rules/expressionPlaceholders';
import { parseItem } from '../../rules/fields';
import { newTemplateName } from '../../rules/templateMessage';
import { canonicalComponents } from '../../rules/templateComponents';
import { checkTemplate } from '../../rules/templateRules';
import { checkLanguageCode, TEMPLATE_CATEGORIES, TEMPLATE_LIMITS } from '../../rules/templateText';
import type { ItemFailure } from '../../sending/outcomes';
import { postEach, type PreparedPost } from '../../sending/postEach';
import { placeholdersKept } from '../parameters';
import { componentsFromForm, componentsFromJson } from './components';
import { languageDescription } from './descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'templateName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. order_update',
		description: 'Unique name of the template in this account (lowercase letters, digits and underscores); messages address the template by it',
	},
	{
		displayName: 'Category',
		name: 'category',
		type: 'options',
		required: true,
		default: 'UTILITY',
		options: [
			{ name: 'Authentication', value: 'AUTHENTICATION', description: 'One-time passwords; the only category with Copy Code and OTP buttons' },
			{ name: 'Marketing', value: 'MARKETING', description: 'Promotions, offers and announcements' },
			{ name: 'Service', value: 'SERVICE', description: 'Customer-service replies' },
			{ name: 'Utility', value: 'UTILITY', description: 'Order, account and delivery updates' },
		],
	},
	{
		displayName: 'Language',
		name: 'language',
		type: 'string',
		required: true,
		default: 'en',
		placeholder: 'en',
		description: languageDescription,
	},
	{
		displayName: 'Define Components',
		name: 'componentsSource',
		type: 'options',
		noDataExpression: true,
		default: 'form',
		options: [
			{ name: 'Using Fields Below', value: 'form', description: 'Header, body, footer and buttons built in the form' },
			{ name: 'Using JSON', value: 'json', description: 'The components array as the service takes it' },
		],
	},
	{
		displayName: 'Header',
		name: 'headerFormat',
		type: 'options',
		default: 'none',
		displayOptions: { show: { componentsSource: ['form'] } },
		options: [
			{ name: 'Document', value: 'DOCUMENT', description: 'A PDF or Office file (up to 100 MB)' },
			{ name: 'Image', value: 'IMAGE', description: 'A JPEG, PNG or WEBP image (up to 5 MB)' },
			{ name: 'None', value: 'none' },
			{ name: 'Text', value: 'TEXT', description: 'Up to 60 characters; may hold variables {{1}}…' },
			{ name: 'Video', value: 'VIDEO', description: 'An MP4 or 3GPP video (up to 16 MB)' },
		],
	},
	{
		displayName: 'Header Text',
		name: 'headerText',
		type: 'string',
		default: '',
		displayOptions: { show: { componentsSource: ['form'], headerFormat: ['TEXT'] } },
		description: `Up to ${TEMPLATE_LIMITS.headerTextMaxCharacters} characters`,
	},
	{
		displayName: 'Body',
		name: 'bodyText',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		placeholder: 'Hi {{1}}, your order {{2}} has shipped.',
		displayOptions: { show: { componentsSource: ['form'] } },
		description: `Up to ${TEMPLATE_LIMITS.bodyMaxCharacters} characters and ${TEMPLATE_LIMITS.bodyMaxVariables} variables, numbered {{1}}, {{2}}, … without gaps`,
		hint: keepFixedHint('1'),
	},
	{
		displayName: 'Footer',
		name: 'footerText',
		type: 'string',
		default: '',
		displayOptions: { show: { componentsSource: ['form'] } },
		description: `Optional, up to ${TEMPLATE_LIMITS.footerMaxCharacters} characters`,
	},
	{
		displayName: 'Buttons',
		name: 'buttons',
		type: 'fixedCollection',
		placeholder: 'Add Button',
		default: {},
		typeOptions: { multipleValues: true },
		displayOptions: { show: { componentsSource: ['form'] } },
		description: 'Up to 3 Quick Reply, 2 URL, 1 Phone Number, 1 Copy Code and 1 OTP button',
		options: [
			{
				name: 'button',
				displayName: 'Button',
				values: [
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'QUICK_REPLY',
						options: [
							{ name: 'Copy Code', value: 'COPY_CODE', description: 'Authentication templates only' },
							{ name: 'OTP', value: 'OTP', description: 'Authentication templates only' },
							{ name: 'Phone Number', value: 'PHONE_NUMBER' },
							{ name: 'Quick Reply', value: 'QUICK_REPLY' },
							{ name: 'URL', value: 'URL' },
						],
					},
					{
						displayName: 'Text',
						name: 'text',
						type: 'string',
						default: '',
						description: 'Label of the button',
					},
					{
						displayName: 'URL',
						name: 'url',
						type: 'string',
						default: '',
						placeholder: 'https://example.com/orders/{{1}}',
						displayOptions: { show: { type: ['URL'] } },
					},
					{
						displayName: 'Phone Number',
						name: 'phoneNumber',
						type: 'string',
						default: '',
						placeholder: '+254712345678',
						displayOptions: { show: { type: ['PHONE_NUMBER'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Components (JSON)',
		name: 'componentsJson',
		type: 'json',
		required: true,
		default:
			'[\n  { "type": "HEADER", "format": "TEXT", "text": "Order update" },\n  { "type": "BODY", "text": "Hi {{1}}, your order {{2}} has shipped." },\n  { "type": "FOOTER", "text": "Reply STOP to opt out" },\n  { "type": "BUTTONS", "buttons": [{ "type": "QUICK_REPLY", "text": "Thanks" }] }\n]',
		displayOptions: { show: { componentsSource: ['json'] } },
		description: 'Array of HEADER, BODY, FOOTER and BUTTONS components; checked against every structure rule before sending',
		hint: keepFixedHint('1'),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['chatTemplate'], operation: ['create'] } }, properties);

const headSchema = z.object({
	name: newTemplateName,
	category: z.enum(TEMPLATE_CATEGORIES, {
		errorMap: () => ({ message: `must be one of ${TEMPLATE_CATEGORIES.join(', ')}` }),
	}),
});

const LABELS = { name: 'Name', category: 'Category' };
const FORM_LABELS = { headerText: 'Header Text', bodyText: 'Body', footerText: 'Footer', buttons: 'Buttons' };

function templateRequest(ctx: IExecuteFunctions, i: number): PreparedPost {
	const node = ctx.getNode();
	const head = parseItem(
		node,
		headSchema,
		{ name: ctx.getNodeParameter('templateName', i), category: ctx.getNodeParameter('category', i) },
		i,
		LABELS,
	);
	const language = checkLanguageCode(node, i, ctx.getNodeParameter('language', i), `"Language" ${languageDescription.replace(/^Language code/, 'must be a language code')}`);
	const source = ctx.getNodeParameter('componentsSource', i, 'form') as string;
	placeholdersKept(ctx, source === 'json' ? { componentsJson: 'Components (JSON)' } : FORM_LABELS)(i);
	const components = source === 'json' ? componentsFromJson(ctx, i) : componentsFromForm(ctx, i);
	checkTemplate(node, i, head.name, head.category, components);
	const body: IDataObject = { name: head.name, category: head.category, language, components: canonicalComponents(components as IDataObject[]) as IDataObject[] };
	return { body };
}

/** The run's reader of one item's template, checked against every structure rule; nothing is sent. */
export function preparer(this: IExecuteFunctions): (i: number) => PreparedPost {
	return (i) => templateRequest(this, i);
}

export async function send(this: IExecuteFunctions, prepared: Array<PreparedPost | ItemFailure>): Promise<INodeExecutionData[]> {
	return await postEach(this, prepared, {
		post: createTemplate,
		noun: 'template',
		// What was created, so a template changed on its way (e.g. by an expression) shows in the output.
		accepted: (template, data) => ({ ...data, components: template.body.components }),
		identify: (template, i) => ({ name: template ? template.body.name : this.getNodeParameter('templateName', i, '') }),
	});
}
