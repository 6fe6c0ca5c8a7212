/** Lint of tests, emulator and benchmarks: TypeScript parsing and ESLint's recommended rules. */
module.exports = {
	root: true,
	env: { es2022: true, node: true, jest: true },
	parser: '@typescript-eslint/parser',
	parserOptions: { sourceType: 'module', ecmaVersion: 2022 },
	ignorePatterns: ["!test/**"],
	extends: ['eslint:recommended'],
	rules: { 'no-unused-vars': 'off', 'no-undef': 'off', 'no-empty': ['error', { allowEmptyCatch: true }] },
};
