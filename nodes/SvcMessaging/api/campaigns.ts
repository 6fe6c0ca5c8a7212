import type { IDataObject } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import { apiRequest, type BeforeSend } from '../transport/request';
import { PATHS } from './paths';

export type { BeforeSend } from '../transport/request';
import type { Page } from './pages';

// Campaign endpoints (account login) answer bare objects, without the `{ success, data }` envelope.

/** `POST /api/sms/campaigns`. */
export async function createCampaign(ctx: SvcContext, body: IDataObject, itemIndex?: number, beforeSend?: BeforeSend): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'POST', path: PATHS.campaigns, auth: 'account', body, itemIndex, beforeSend })) as IDataObject;
}

/** `GET /api/sms/campaigns/:id`. */
export async function getCampaign(ctx: SvcContext, id: string, itemIndex?: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'GET', path: PATHS.campaign(id), auth: 'account', itemIndex })) as IDataObject;
}

/** `PATCH /api/sms/campaigns/:id` (DRAFT or SCHEDULED only). */
export async function updateCampaign(ctx: SvcContext, id: string, body: IDataObject, itemIndex?: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'PATCH', path: PATHS.campaign(id), auth: 'account', body, itemIndex })) as IDataObject;
}

/** `DELETE /api/sms/campaigns/:id`: `{ id, deleted: true }`. */
export async function deleteCampaign(ctx: SvcContext, id: string, itemIndex?: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'DELETE', path: PATHS.campaign(id), auth: 'account', itemIndex })) as IDataObject;
}

/** `POST /api/sms/campaigns/:id/send` (no body): the campaign, now SENDING. */
export async function sendCampaignNow(ctx: SvcContext, id: string, itemIndex?: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'POST', path: `${PATHS.campaign(id)}/send`, auth: 'account', itemIndex })) as IDataObject;
}

/** `POST /api/sms/campaigns/:id/cancel`. */
export async function cancelCampaign(ctx: SvcContext, id: string, itemIndex?: number): Promise<IDataObject> {
	return (await apiRequest.call(ctx, { method: 'POST', path: `${PATHS.campaign(id)}/cancel`, auth: 'account', itemIndex })) as IDataObject;
}

/** One page of `GET /api/sms/campaigns` (most recent first): `{ data, total, page, limit, totalPages }`. */
export async function listCampaignsPage(ctx: SvcContext, page: number, limit: number, itemIndex?: number): Promise<Page> {
	const body = (await apiRequest.call(ctx, { method: 'GET', path: PATHS.campaigns, auth: 'account', qs: { page, limit }, itemIndex })) as IDataObject;
	const data = Array.isArray(body?.data) ? (body.data as IDataObject[]) : [];
	const totalPages = Number(body?.totalPages);
	return {
		data,
		page,
		// Without a usable totalPages, a short page is the last one.
		totalPages: Number.isFinite(totalPages) ? totalPages : data.length < limit ? page : page + 1,
	};
}
