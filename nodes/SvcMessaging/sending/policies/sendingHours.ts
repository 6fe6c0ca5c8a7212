import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INVALID_INPUT, withErrorCode } from '../../transport/errors';
import { withoutCost, type ItemFailure } from '../outcomes';
import { judge, judgeTogether, verdictFields, zoneOfNumber, type QuietHours, type Verdict, type Zone } from './quietHours';

/** What Sending Hours did to a run's units: skipped (not sent), deferred (scheduled for the next opening). */
export interface HoursCount {
	skipped: number;
	deferred: number;
}

/** How an operation takes a message deferred by Sending Hours. */
export type Scheduling = 'scheduledAt' | 'none' | 'noWait';

export interface HoursUnit {
	itemIndex: number;
	/** Sending Hours deferred it: its output fields, with the scheduledAt it is posted with */
	deferred?: IDataObject;
	outcome?: { ok: true; json: IDataObject } | ItemFailure;
}

/**
 * Sending Hours over the units, judged at one instant: a unit skipped ends with its outcome (not
 * sent, with the next opening); a deferred one gets `deferred` (SMS: posted with that scheduledAt;
 * Send and Wait: refused, as it cannot wait for it). Answers how many units were decided here
 * (skipped among them), and how many deferred.
 */
export function applyQuietHours<U extends HoursUnit>(
	node: INode,
	hours: QuietHours,
	units: U[],
	unit: {
		recipientOf?: (u: U) => string;
		/** one send time for several recipients (a scheduled campaign); undefined: not judged (a draft) */
		recipientsOf?: (u: U) => SharedSendTime | undefined;
		scheduledAtOf?: (u: U) => string | undefined;
		price: (u: U) => IDataObject;
		scheduling: Scheduling;
	},
): HoursCount & { decided: number } {
	if (hours.outside === 'schedule' && unit.scheduling === 'none') {
		const error = new NodeOperationError(node, 'Item 0: chat messages cannot be scheduled, so "Outside Sending Hours" cannot be "Schedule for the Next Opening"', {
			itemIndex: 0,
			description: 'Nothing was sent. Choose Skip (the item is output as not sent, with the next opening) or Send Anyway.',
		});
		throw withErrorCode(error, INVALID_INPUT);
	}
	const now = Date.now();
	let decided = 0;
	let skipped = 0;
	let deferred = 0;
	for (const u of units) {
		if (u.outcome) continue;
		const own = unit.scheduledAtOf?.(u);
		const verdict = unit.recipientOf ? judge(hours, unit.recipientOf(u), u.itemIndex, now, own) : judgeShared(node, hours, u, unit.recipientsOf?.(u));
		if (verdict.kind === 'never') {
			u.outcome = { ok: false, itemIndex: u.itemIndex, error: verdict.error };
			decided++;
			continue;
		}
		if (verdict.kind === 'open') continue;
		const fields = verdictFields(verdict, own);
		if (verdict.kind === 'send') {
			// Sent as it is (its own Scheduled Time kept), its output marked sentAnyway.
			u.deferred = own ? { ...fields, scheduledAt: own } : fields;
			continue;
		}
		if (verdict.kind === 'skip') {
			// What would have been posted, without a send time or cost: nothing goes out, nothing is charged.
			const json = withoutCost(unit.price(u));
			u.outcome = { ok: true, json: { ...json, accepted: false, ...fields } };
			decided++;
			skipped++;
		} else if (unit.scheduling === 'noWait') {
			const error = new NodeOperationError(
				node,
				`Item ${u.itemIndex}: outside Sending Hours (${String(fields.judgedLocalTime)}, ${String(fields.timeZone)}): the next opening is ${String(fields.scheduledAt)}, and Send and Wait does not wait for scheduled messages`,
				{ itemIndex: u.itemIndex, description: 'Nothing was sent for this item. Choose Skip or Send Anyway, or use SMS → Send (it schedules) with a delivery report trigger.' },
			);
			u.outcome = { ok: false, itemIndex: u.itemIndex, error: withErrorCode(error, INVALID_INPUT) };
			decided++;
		} else {
			u.deferred = fields;
			deferred++;
		}
	}
	return { decided, skipped, deferred };
}

/** A campaign's recipients as Sending Hours sees them: its numbers, and whether contact groups come too. */
export interface SharedSendTime {
	scheduledAt: string;
	numbers: string[];
	contactGroups: boolean;
}

/**
 * One send time for all of a campaign's recipients: judged in each zone its numbers are in (one per
 * country), contact groups in the Time Zone field, else the workflow's (their members are known to
 * the service only). No time that suits every zone: the item is refused, nothing created.
 */
function judgeShared(node: INode, hours: QuietHours, u: HoursUnit, shared: SharedSendTime | undefined): Verdict | { kind: 'never'; error: NodeOperationError } {
	if (!shared) return { kind: 'open' };
	const zones = new Map<string, Zone>();
	for (const number of shared.numbers) {
		const zone = zoneOfNumber(hours, number, u.itemIndex);
		zones.set('fixed' in zone ? zone.label : zone.iana, zone);
	}
	if (shared.contactGroups || zones.size === 0) zones.set(hours.zoneOf(u.itemIndex), { iana: hours.zoneOf(u.itemIndex) });
	const verdict = judgeTogether(hours, [...zones.values()], shared.scheduledAt);
	if (verdict.kind !== 'never') return verdict;
	const error = new NodeOperationError(node, `Item ${u.itemIndex}: no time inside Sending Hours suits every recipient of this campaign (${verdict.zone}) within a week`, {
		itemIndex: u.itemIndex,
		description: 'The campaign was not created. A campaign has one send time: split it by country, or widen the hours.',
	});
	return { kind: 'never', error: withErrorCode(error, INVALID_INPUT) };
}
