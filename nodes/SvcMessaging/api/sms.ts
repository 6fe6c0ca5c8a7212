import type { IDataObject } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import { apiRequest, unwrap, type BeforeSend } from '../transport/request';
import { PATHS } from './paths';

export type { BeforeSend } from '../transport/request';

/** `POST /api/sms/send-api`: one message (`phoneNumber`) or a bulk call (`recipients`); the envelope's data. */
export async function sendSms(ctx: SvcContext, body: IDataObject, itemIndex?: number, beforeSend?: BeforeSend): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'POST', path: PATHS.sendSms, auth: 'apiKey', body, itemIndex, beforeSend }));
}

/** `GET /api/sms/messages/:messageId`. */
export async function getMessage(ctx: SvcContext, messageId: string, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.message(messageId), auth: 'apiKey', itemIndex }));
}

/** `GET /api/sms/batches/:batchId`. */
export async function getBatch(ctx: SvcContext, batchId: string, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.batch(batchId), auth: 'apiKey', itemIndex }));
}

/** `GET /api/sms/analytics/delivery-rates?startDate&endDate`. */
export async function getDeliveryRates(ctx: SvcContext, qs: IDataObject, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.deliveryRates, auth: 'apiKey', qs, itemIndex }));
}

/** `GET /api/sms/sender-ids`: every sender ID of the account (the endpoint has no paging). */
export async function listSenderIds(ctx: SvcContext, itemIndex?: number): Promise<IDataObject[]> {
	const all = unwrap<IDataObject[]>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.senderIds, auth: 'apiKey', itemIndex }));
	return Array.isArray(all) ? all : [];
}
