import type { IDataObject, INode } from 'n8n-workflow';

import { sendSms, type BeforeSend } from '../../api/sms';
import type { SvcContext } from '../../transport/credentials';
import { countryOfNumber, SUPPORTED_COUNTRIES } from '../../rules/phone';
import { errorCodeOf } from '../../transport/errors';
import { itemLead, senderRefusedTitle, titledErrors } from '../../transport/errorTitles';
import { SERVICE } from '../../transport/service';

/** The country's name ("Ghana"), or its code for a number outside the six countries. */
export function countryName(phoneNumber: string | undefined): string | undefined {
	const code = phoneNumber ? countryOfNumber(phoneNumber) : undefined;
	return code ? (SUPPORTED_COUNTRIES[code] ?? code) : undefined;
}

/**
 * Version 2's title of a refused sender ID names the sender ID and the number's country (sender IDs
 * are approved per country), not the number alone: "Item 3: The service refused the sender ID
 * "ACMEKE" for Ghana (+233241000103)". Other errors are left as they are.
 */
export function namingSender<E>(error: E, node: INode, senderId: unknown, phoneNumber: string | undefined, itemIndex: number | undefined): E {
	// Version 1's titles ("POST … failed: CODE – message") are kept: saved workflows may test for them.
	if (errorCodeOf(error) !== 'INVALID_SENDER_ID' || !titledErrors(node)) return error;
	const e = error as unknown as { message: string };
	e.message = `${itemLead(itemIndex)}${senderRefusedTitle(String(senderId || SERVICE.defaultSenderId), phoneNumber, countryName(phoneNumber))}`;
	return error;
}

/** SMS → Send's post: `POST /api/sms/send-api`, a refused sender ID named with the number's country. */
export function sendNamingSender(node: INode) {
	return async (service: SvcContext, body: IDataObject, itemIndex: number, beforeSend: BeforeSend) =>
		await sendSms(service, body, itemIndex, beforeSend).catch((error: unknown) => {
			throw namingSender(error, node, body.senderId, body.phoneNumber as string | undefined, itemIndex);
		});
}
