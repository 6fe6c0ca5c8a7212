import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { componentsOfJson } from '../../rules/templateRules';

/** The components built in the form: header, body, footer and buttons. */
export function componentsFromForm(ctx: IExecuteFunctions, i: number): IDataObject[] {
	const components: IDataObject[] = [];
	const headerFormat = ctx.getNodeParameter('headerFormat', i, 'none') as string;
	if (headerFormat === 'TEXT') {
		components.push({ type: 'HEADER', format: 'TEXT', text: ctx.getNodeParameter('headerText', i, '') as string });
	} else if (headerFormat !== 'none') {
		components.push({ type: 'HEADER', format: headerFormat });
	}
	components.push({ type: 'BODY', text: ctx.getNodeParameter('bodyText', i, '') as string });
	const footer = ctx.getNodeParameter('footerText', i, '') as string;
	if (footer !== '') components.push({ type: 'FOOTER', text: footer });
	const buttons = ((ctx.getNodeParameter('buttons', i, {}) as IDataObject).button ?? []) as IDataObject[];
	if (buttons.length) {
		components.push({
			type: 'BUTTONS',
			buttons: buttons.map((b) => {
				const button: IDataObject = { type: b.type };
				if (b.text !== '' && b.text !== undefined) button.text = b.text;
				if (b.type === 'URL') button.url = b.url;
				if (b.type === 'PHONE_NUMBER') button.phone_number = b.phoneNumber;
				return button;
			}),
		});
	}
	return components;
}

/** "Components (JSON)": the array, or a whole template object holding one. */
export function componentsFromJson(ctx: IExecuteFunctions, i: number): unknown {
	return componentsOfJson(ctx.getNode(), i, ctx.getNodeParameter('componentsJson', i));
}
