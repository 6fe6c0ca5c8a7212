/** Lint of the published code: n8n's community-node rule sets plus TypeScript parsing. */
module.exports = {
	root: true,
	env: { es6: true, node: true },
	parser: '@typescript-eslint/parser',
	parserOptions: { project: ['./tsconfig.json'], sourceType: 'module', extraFileExtensions: ['.json'] },
	ignorePatterns: ['.eslintrc.js', '**/*.js', '**/node_modules/**', '**/dist/**', 'test/**', 'bench/**'],
	overrides: [
		{
			files: ['package.json'],
			parserOptions: { project: null },
			plugins: ['eslint-plugin-n8n-nodes-base'],
			extends: ['plugin:n8n-nodes-base/community'],
			rules: { 'n8n-nodes-base/community-package-json-name-still-default': 'off' },
		},
		{
			files: ['./credentials/**/*.ts'],
			plugins: ['eslint-plugin-n8n-nodes-base'],
			extends: ['plugin:n8n-nodes-base/credentials'],
			rules: {
				'n8n-nodes-base/cred-class-field-documentation-url-missing': 'off',
				'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
				'no-restricted-globals': ['error', 'process', 'global', 'globalThis', 'setTimeout', 'setInterval'],
				'community-imports': 'error',
			},
		},
		{
			files: ['./nodes/**/*.ts'],
			plugins: ['eslint-plugin-n8n-nodes-base'],
			extends: ['plugin:n8n-nodes-base/nodes'],
			rules: {
				'n8n-nodes-base/node-execute-block-missing-continue-on-fail': 'off',
				'n8n-nodes-base/node-resource-description-filename-against-convention': 'off',
				'n8n-nodes-base/node-param-fixed-collection-type-unsorted-items': 'off',
				// The community rules of n8n's package scanner, enforced with core ESLint rules.
				'no-restricted-globals': ['error', 'process', 'global', 'globalThis', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate'],
				'community-imports': 'error',
			},
		},
		{
			// The versioned description lives beside the router, as in n8n's Airtable v2 and Teams v2.
			files: ['./nodes/**/actions/versionDescription.ts'],
			rules: {
				'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
				'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			},
		},
		{
			// Superseded by @n8n/community-nodes/node-connection-type-literal (eslint.community.config.mjs),
			// which asks for NodeConnectionTypes.Main where this older rule asks for 'main'; n8n's own
			// node-cli lint config turns it off for every node too.
			files: ['./nodes/**/*.node.ts'],
			rules: { 'n8n-nodes-base/node-class-description-outputs-wrong': 'off' },
		},
	],
};
