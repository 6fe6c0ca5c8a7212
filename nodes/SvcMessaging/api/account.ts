import type { IDataObject } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import { apiRequest, unwrap } from '../transport/request';
import { SERVICE } from '../transport/service';

/** `GET /api/account/balance` (README → Assumptions: `{ success, data: { credits, updatedAt } }`). */
export async function getBalance(ctx: SvcContext, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: SERVICE.paths.balance, auth: 'account', itemIndex }));
}
