/**
 * How refusals are worded: the offending value quoted (shortened, and without what could be a
 * secret), each item named once, and a summary of several items one line per item.
 */

const QUOTE_MAX_CHARACTERS = 40;

/** WHATWG URL parsing strips C0 controls and spaces (U+0000-U+0020) at both ends; built from code points, as lint refuses control characters in a literal. */
const C0_OR_SPACE = `[${String.fromCharCode(0)}-${String.fromCharCode(0x20)}]`;
const C0_OR_SPACE_AT_ENDS = new RegExp(`^${C0_OR_SPACE}+|${C0_OR_SPACE}+$`, 'g');

/**
 * A link's user name, password, query and fragment can carry tokens: they are never quoted. A link
 * is any text WHATWG URL parsing could read as one: spaces around it, tabs and line breaks inside
 * (which it drops), backslashes for slashes (`https:\\u:pw@host`), no scheme (`u:pw@host`,
 * `hooks.example.com/x?token=…`).
 */
function withoutUrlSecrets(text: string): string {
	const link = text.replace(/[\t\n\r]/g, '').replace(C0_OR_SPACE_AT_ENDS, '');
	const schemed = /^([a-z][a-z0-9+.-]*:[\\/]|[\\/]{2})/i.test(link);
	const bare = !/\s/.test(link) && (link.includes('@') || /^[\w-]+(\.[\w-]+)+(:\d*)?([\\/?#]|$)/.test(link));
	if (!schemed && !bare) return text;
	return link.replace(/^([a-z][a-z0-9+.-]*:[\\/]+|[\\/]{2,})?[^\\/?#]*@/i, (_login, scheme: string | undefined) => `${scheme ?? ''}…@`).replace(/[?#].*$/s, (rest) => `${rest[0]}…`);
}

/**
 * A text or number as it appears in an error: in quotes, control characters and lone surrogates
 * escaped, cut to 40 characters; undefined for anything else (its kind is named by the rule).
 */
export function quoted(value: unknown): string | undefined {
	if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
	if (typeof value !== 'string') return undefined;
	const points = [...withoutUrlSecrets(value)];
	const shown = points.length > QUOTE_MAX_CHARACTERS ? `${points.slice(0, QUOTE_MAX_CHARACTERS - 1).join('')}…` : points.join('');
	return JSON.stringify(shown);
}

/** `rule (got "value")`, unless the rule quotes the value already or it cannot be quoted. */
export function withValue(rule: string, value: unknown): string {
	const shown = typeof value === 'string' && value.trim() === '' ? undefined : quoted(value);
	return shown === undefined || rule.includes('(got ') ? rule : `${rule} (got ${shown})`;
}

/** How an item's own refusal starts: `Item 3: `. */
export const itemPrefix = (itemIndex: number) => `Item ${itemIndex}: `;

/** An item's error message without the item's own name, for a line that names the item itself. */
export function withoutItemTag(message: string, itemIndex: number): string {
	const prefix = itemPrefix(itemIndex);
	return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** `0, 1, 2, …` (the first 20). */
export function itemList(items: number[]): string {
	return items.slice(0, 20).join(', ') + (items.length > 20 ? ', …' : '');
}

/** One error shared by the items of one call: it names all of them instead of the first. */
export function sharedErrorMessage(message: string, firstItem: number, items: number[]): string {
	if (items.length < 2) return message;
	const prefix = itemPrefix(firstItem);
	return message.startsWith(prefix) ? `Items ${itemList(items)}: ${message.slice(prefix.length)}` : message;
}

export interface SummaryLine {
	itemIndex: number;
	message: string;
	/** the service's own words, which an error's title leaves to its description */
	serviceMessage?: string;
}

const SUMMARY_MAX_ITEMS = 20;

/** One line per item (`item 3: …`), the first 20 items; an item's several problems share its line. */
export function perItemLines(failures: SummaryLine[]): string[] {
	const byItem = new Map<number, string[]>();
	for (const f of failures) {
		const problems = byItem.get(f.itemIndex) ?? [];
		const title = withoutItemTag(f.message, f.itemIndex);
		const problem = f.serviceMessage ? `${title}: ${f.serviceMessage}` : title;
		if (!problems.includes(problem)) problems.push(problem);
		byItem.set(f.itemIndex, problems);
	}
	const items = [...byItem.keys()];
	const lines = items.slice(0, SUMMARY_MAX_ITEMS).map((item) => `item ${item}: ${byItem.get(item)!.join('; ')}`);
	if (items.length > SUMMARY_MAX_ITEMS) lines.push(`… and ${items.length - SUMMARY_MAX_ITEMS} more item(s)`);
	return lines;
}

/**
 * The error that ends a send in which some items were not accepted: its title counts them, its
 * description has one line per item (several recipients of one item share the line).
 */
export function sendSummary(failures: SummaryLine[], acceptedCount: number, noun: string): { message: string; description: string } {
	const items = [...new Set(failures.map((f) => f.itemIndex))];
	return {
		message: `${failures.length} ${noun}(s) were not accepted (items ${itemList(items)}); ${acceptedCount} were accepted`,
		description:
			`${perItemLines(failures).join('\n')}\n\nAccepted ${noun}s are not sent again if this node is retried. ` +
			'Turn on "Continue On Fail" (or route errors to the error output) to get one output item per recipient instead.',
	};
}
