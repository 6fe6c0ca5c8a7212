/**
 * The template variable mapper's labels: "Body {{2}}" alone does not say what the value is for,
 * so each label is the variable, then the template's text around its first use with its own place
 * shown as ___: `Body {{2}}: …It expires in ___ minutes.`. The variable comes first because n8n 2
 * cuts a mapper label after about 24 characters (n8n 1 shows it whole), and a label that starts
 * with the text of another variable (`Hi {{1}}, your order {{2}}…`) does not say which it fills.
 */

/** Characters of the template's text shown on each side of the variable (whole words kept). */
const CONTEXT_CHARACTERS = 20;

/** `from` to `to` of a code point list; a cut word is left out and the cut marked with "…". */
function around(chars: string[], from: number, to: number, side: 'before' | 'after'): string {
	const start = Math.max(0, from);
	const end = Math.min(chars.length, to);
	let text = chars.slice(start, end).join('');
	if (side === 'before' && start > 0) text = `…${text.includes(' ') && chars[start - 1] !== ' ' ? text.slice(text.indexOf(' ') + 1) : text}`;
	if (side === 'after' && end < chars.length) text = `${text.includes(' ') && chars[end] !== ' ' ? text.slice(0, text.lastIndexOf(' ')) : text}…`;
	return text;
}

export function variableLabel(part: 'Header' | 'Body', n: number, templateText: string | undefined): string {
	const name = `${part} {{${n}}}`;
	const flat = (templateText ?? '').replace(/\s+/g, ' ').trim();
	const match = new RegExp(`\\{\\{\\s*${n}\\s*\\}\\}`).exec(flat);
	if (!match) return name;
	const before = [...flat.slice(0, match.index)];
	const after = [...flat.slice(match.index + match[0].length)];
	const left = around(before, before.length - CONTEXT_CHARACTERS, before.length, 'before');
	const right = around(after, 0, CONTEXT_CHARACTERS, 'after');
	if (!left && !right) return name;
	return `${name}: ${left}___${right}`;
}
