import type { IDataObject } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import { apiRequest, unwrap, type BeforeSend } from '../transport/request';
import { PATHS } from './paths';
import type { Page } from './pages';

/** `POST /api/chat/messages`. */
export async function sendChatMessage(ctx: SvcContext, body: IDataObject, itemIndex?: number, beforeSend?: BeforeSend): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'POST', path: PATHS.chatMessages, auth: 'apiKey', body, itemIndex, beforeSend }));
}

/** `POST /api/chat/templates`. */
export async function createTemplate(ctx: SvcContext, body: IDataObject, itemIndex?: number, beforeSend?: BeforeSend): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'POST', path: PATHS.chatTemplates, auth: 'apiKey', body, itemIndex, beforeSend }));
}

/** One page of `GET /api/chat/templates` (raw body: `{ success, data, pagination }`). */
export async function listTemplatesPage(ctx: SvcContext, qs: IDataObject, itemIndex?: number): Promise<Page & { total: number }> {
	const body = (await apiRequest.call(ctx, { method: 'GET', path: PATHS.chatTemplates, auth: 'apiKey', qs, itemIndex })) as IDataObject;
	const data = Array.isArray(body?.data) ? (body.data as IDataObject[]) : [];
	const pagination = (body?.pagination ?? {}) as IDataObject;
	const page = Number(pagination.page) || Number(qs.page) || 1;
	return {
		data,
		page,
		totalPages: Number.isFinite(Number(pagination.totalPages)) ? Number(pagination.totalPages) : page,
		total: Number(pagination.total) || data.length,
	};
}

/** `GET /api/chat/templates/:name`. */
export async function getTemplate(ctx: SvcContext, name: string, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.chatTemplate(name), auth: 'apiKey', itemIndex }));
}

/** `DELETE /api/chat/templates/:name`. */
export async function deleteTemplate(ctx: SvcContext, name: string, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'DELETE', path: PATHS.chatTemplate(name), auth: 'apiKey', itemIndex }));
}
