/** How the demo prints a rejected recipient: its code and message, the code once (a service rejection's message starts with it). */
export function rejection(o: Record<string, unknown>): string {
	const code = String(o.errorCode ?? '');
	const message = String(o.errorMessage ?? o.error ?? '');
	return code !== '' && message.startsWith(code) ? message : `${code} ${message}`.trim();
}
