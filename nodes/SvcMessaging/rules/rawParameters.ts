/** A parameter of the node as saved in the workflow, before n8n evaluates it (`a.b.c`: nested). */
export function rawParameter(parameters: Record<string, unknown>, path: string): unknown {
	return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], parameters);
}

/** Whether a saved parameter holds an expression anywhere (its value may then differ per item). */
export function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}
