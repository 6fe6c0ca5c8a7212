import type { INodeProperties } from 'n8n-workflow';

/**
 * The template picker: a searchable list that pages through every template of the account, or
 * the template's name typed in (names are unique per account).
 */
export const templateLocator = (
	searchListMethod: 'searchChatTemplates' | 'searchApprovedChatTemplates',
	description: string,
): INodeProperties => ({
	displayName: 'Template',
	name: 'template',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder:
				searchListMethod === 'searchApprovedChatTemplates' ? 'Select an approved template...' : 'Select a template...',
			typeOptions: { searchListMethod, searchable: true },
		},
		{
			displayName: 'By Name',
			name: 'name',
			type: 'string',
			placeholder: 'e.g. order_update',
		},
	],
});

export const languageDescription =
	'Language code as the chat platform writes it, e.g. en, sw, fr or en_US (en-us is accepted and written as en_US)';
