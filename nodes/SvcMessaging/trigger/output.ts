import type { IDataObject } from 'n8n-workflow';

import type { DeliveryReport } from './payload';

/**
 * One output item per delivery report: `event`, `timestamp` and the `data` fields side by side.
 * Fields the report leaves out are null, so every item has the same columns; `reasonCode` and
 * `reasonMessage` are present on `message.failed` items only.
 */
export function flattenReport(report: DeliveryReport, raw?: IDataObject): IDataObject {
	const { data } = report;
	const item: IDataObject = {
		event: report.event,
		timestamp: report.timestamp,
		messageId: data.messageId,
		batchId: data.batchId ?? null,
		phoneNumber: data.phoneNumber,
		status: data.status,
		senderId: data.senderId ?? null,
		reference: data.reference ?? null,
		deliveredAt: data.deliveredAt ?? null,
		creditsUsed: data.creditsUsed ?? null,
	};
	if (report.event === 'message.failed') {
		item.reasonCode = report.data.reason.code;
		item.reasonMessage = report.data.reason.message;
	}
	if (raw !== undefined) item.raw = raw;
	return item;
}
