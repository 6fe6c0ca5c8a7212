import type { IDataObject } from 'n8n-workflow';

import { normalizePhoneNumber } from '../rules/phone';
import { doNotSendStore } from '../sending/policies/doNotSendStore';
import type { SharedLimitConfig } from '../transport/redis';
import type { DeliveryReport } from './payload';

/** The failure code of a report whose number the carrier or the service refuses for good (spec: Events). */
export const BLACKLISTED = 'BLACKLISTED';

export function isBlacklisted(report: DeliveryReport): boolean {
	return report.event === 'message.failed' && report.data.reason.code === BLACKLISTED;
}

/**
 * "Add Blacklisted Numbers to the Do-Not-Send List": the report's number goes on the credential's
 * Redis list (E.164; the service may write it without its +). Adding twice changes nothing, so a
 * retried report is harmless. Answers the fields the item gets; throws when Redis cannot be used
 * (the webhook then answers 503 and the service delivers the report again).
 */
export async function addBlacklisted(report: DeliveryReport, shared: SharedLimitConfig | undefined): Promise<IDataObject> {
	if (!shared) {
		return {
			addedToDoNotSendList: false,
			doNotSendListNote: 'The credential has no Redis (Use Redis), where the do-not-send list is kept',
		};
	}
	const raw = report.data.phoneNumber.trim();
	const parsed = [raw, `+${raw}`].map((text) => normalizePhoneNumber(text, undefined, 'format')).find((result) => result.ok);
	const number = parsed?.ok ? parsed.e164 : undefined;
	if (!number) return { addedToDoNotSendList: false, doNotSendListNote: 'The report’s phone number is not a phone number in E.164 form' };
	await (await doNotSendStore(shared)).add([number]);
	return { addedToDoNotSendList: true };
}
