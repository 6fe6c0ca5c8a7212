import type { IDataObject } from 'n8n-workflow';

import { countryOfNumber } from '../../rules/phone';
import { SERVICE } from '../../transport/service';

/** What the choice needs of the send: the account's sender IDs (read once) and an execution hint. */
export interface SenderChoice {
	senderIds(itemIndex: number): Promise<IDataObject[]>;
	hint(message: string): void;
}

/** Sender ID "Automatic (by Recipient's Country)": the value the pickers offer for it. */
export const AUTOMATIC_SENDER = 'auto';

/** Countries where the spec allows numeric sender IDs. */
const NUMERIC_ALLOWED = ['KE'];

/**
 * The sender ID for each country of the send: an ACTIVE sender ID approved for it (its countries[]);
 * alphanumeric first, the most specific (fewest countries: a brand's over a catch-all), then the
 * account's order; numeric only where the spec allows it (Kenya), when no alphanumeric fits.
 */
export function senderForCountry(senderIds: IDataObject[], country: string): string | undefined {
	const fits = senderIds.filter((s) => {
		const countries = Array.isArray(s.countries) ? (s.countries as string[]) : [];
		const numeric = String(s.type ?? '').toUpperCase() === 'NUMERIC';
		return String(s.status ?? 'ACTIVE') === 'ACTIVE' && countries.includes(country) && (!numeric || NUMERIC_ALLOWED.includes(country));
	});
	const rank = (s: IDataObject) => (String(s.type ?? '').toUpperCase() === 'NUMERIC' ? 1000 : 0) + ((s.countries as string[]).length ?? 0);
	let best: IDataObject | undefined;
	for (const s of fits) if (!best || rank(s) < rank(best)) best = s;
	return best ? String(best.senderId) : undefined;
}

/**
 * Sets `sender` on each unit that asked for the automatic sender ID: the account's sender IDs are
 * looked up once (a read; it runs in a dry run too), one choice per country. A unit whose country
 * has no fitting sender ID keeps none (the service's default) and a hint names the countries.
 */
export async function chooseSenders<U extends { itemIndex: number; sender?: string; outcome?: unknown }>(
	send: SenderChoice,
	units: U[],
	recipientOf: (unit: U) => string,
	automatic: (unit: U) => boolean,
): Promise<void> {
	let senderIds: IDataObject[] | undefined;
	const chosen = new Map<string, string | undefined>();
	const unmatched = new Map<string, number>();
	for (const unit of units) {
		if (unit.outcome || !automatic(unit)) continue;
		senderIds ??= await send.senderIds(unit.itemIndex);
		const country = countryOfNumber(recipientOf(unit)) ?? 'other';
		if (!chosen.has(country)) chosen.set(country, senderForCountry(senderIds, country));
		const sender = chosen.get(country);
		if (sender !== undefined) unit.sender = sender;
		else unmatched.set(country, (unmatched.get(country) ?? 0) + 1);
	}
	if (unmatched.size === 0) return;
	const list = [...unmatched].map(([country, n]) => `${country === 'other' ? 'other countries' : country} (${n})`).join(', ');
	send.hint(
		`Sender ID Automatic: no ACTIVE sender ID of the account is approved for ${list}; those messages use the service's default sender (${SERVICE.defaultSenderId}). Register a sender ID for the country in the dashboard.`,
	);
}
