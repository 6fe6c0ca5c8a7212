/**
 * How the demo prints a rejected recipient: its code and what went wrong, the code once. Version 1
 * starts a service rejection's message with the code; version 2 titles it `Item N: …` and puts the
 * service's words in the description (`The service said: … (CODE).`), which the demo shows instead.
 */
export function rejection(o: Record<string, unknown>): string {
	const code = String(o.errorCode ?? '');
	const message = String(o.errorMessage ?? o.error ?? '');
	const said = /^The service said: (.+?)(?: \([A-Z0-9_]+\))?\.?$/s.exec(String(o.errorDescription ?? ''))?.[1];
	if (said !== undefined) return `${code} – ${said}`;
	return code !== '' && message.startsWith(code) ? message : `${code} ${message}`.trim();
}
