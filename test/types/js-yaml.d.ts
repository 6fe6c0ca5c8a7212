/** The part of js-yaml (already in node_modules through ESLint and Jest; it ships no types) the tests use. */
declare module 'js-yaml' {
	export function load(text: string): unknown;
}
