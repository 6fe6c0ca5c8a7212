import type { IDataObject } from 'n8n-workflow';

import type { SvcContext } from '../transport/credentials';
import { apiRequest, unwrap } from '../transport/request';
import { PATHS } from './paths';

/** `GET /api/account/balance` (docs/assumptions.md: `{ success, data: { credits, updatedAt } }`). */
export async function getBalance(ctx: SvcContext, itemIndex?: number): Promise<IDataObject> {
	return unwrap<IDataObject>(await apiRequest.call(ctx, { method: 'GET', path: PATHS.balance, auth: 'account', itemIndex }));
}
