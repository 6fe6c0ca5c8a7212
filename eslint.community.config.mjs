/**
 * n8n's current community-node lint (@n8n/eslint-plugin-community-nodes, the rules of n8n's
 * community-package scanner), run by `npm run lint` next to eslint-plugin-n8n-nodes-base
 * (.eslintrc.js). The plugin needs ESLint 9 and flat config; this repository keeps ESLint 8.57.1
 * for the older plugin, so this file runs under the `eslint9` alias (npm:eslint@9.29.0, the
 * version the plugin pins as its peer): `node node_modules/eslint9/bin/eslint.js -c <this file>`.
 *
 * Every rule of the plugin's `recommended` config (the n8n Cloud one) is on. The only exceptions
 * are the findings caused by the runtime dependencies this package chose on purpose (zod,
 * bottleneck, libphonenumber-js, ioredis — see docs/dependencies.md), each narrowed to exactly
 * those packages. `npm run lint:scan` runs the scanner's own configuration unchanged and allows only
 * the same two findings.
 */
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';

const PLUGIN = '@n8n/community-nodes';
const recommended = n8nCommunityNodesPlugin.configs.recommended;

/** The runtime dependencies chosen on purpose (docs/dependencies.md); nothing else is allowed. */
const CHOSEN_DEPENDENCIES = new Set(['zod', 'bottleneck', 'libphonenumber-js', 'ioredis']);

/**
 * The one Node built-in besides crypto: "Verify Media Link" resolves a link's host to refuse private
 * addresses (nodes/SvcMessaging/platform/hostAddresses.ts, for rules/mediaVerify.ts). n8n's scanner (npm run lint:scan) reports it.
 */
const CHOSEN_BUILTINS = new Set(['node:dns']);

const packageOf = (modulePath) =>
	modulePath.startsWith('@') ? modulePath.split('/').slice(0, 2).join('/') : modulePath.split('/')[0];

/** The top-level object of package.json (linted as a TypeScript expression, as the plugin does). */
function topLevelKeys(program, field) {
	const statement = program.body.find((s) => s.type === 'ExpressionStatement' && s.expression.type === 'ObjectExpression');
	const property = statement?.expression.properties.find((p) => p.type === 'Property' && (p.key.value ?? p.key.name) === field);
	if (property?.value.type !== 'ObjectExpression') return undefined;
	return property.value.properties.map((p) => p.key.value ?? p.key.name);
}

/**
 * A plugin rule whose reports pass through `keep(report, context)`: the rule itself still runs in
 * full, only the listed exception is dropped (a report for anything else still fails the lint).
 */
function narrowed(ruleName, keep) {
	const rule = n8nCommunityNodesPlugin.rules[ruleName];
	return {
		...rule,
		create(context) {
			const filtered = Object.create(context, {
				report: { value: (descriptor) => (keep(descriptor, context) ? context.report(descriptor) : undefined) },
			});
			return rule.create(filtered);
		},
	};
}

const local = {
	rules: {
		// Imports of the chosen dependencies (libphonenumber-js/core etc. included); any other
		// package is still refused.
		'no-restricted-imports': narrowed(
			'no-restricted-imports',
			(report, context) => {
				const name = packageOf(String(report.data?.modulePath ?? ''));
				const builtinHere = CHOSEN_BUILTINS.has(name) && /platform[\\/]hostAddresses\.ts$/.test(context.filename);
				return !CHOSEN_DEPENDENCIES.has(name) && !builtinHere;
			},
		),
		// `dependencies` may hold the chosen packages and nothing else.
		'no-runtime-dependencies': narrowed('no-runtime-dependencies', (_report, context) => {
			const names = topLevelKeys(context.sourceCode.ast, 'dependencies') ?? [];
			return names.some((name) => !CHOSEN_DEPENDENCIES.has(name));
		}),
	},
};

export default [
	{ ignores: ['dist/**', 'node_modules/**', '.n8n-e2e/**'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		plugins: { ...recommended.plugins, 'svc-community': local },
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules: {
			...recommended.rules,
			[`${PLUGIN}/no-restricted-imports`]: 'off',
			'svc-community/no-restricted-imports': 'error',
			[`${PLUGIN}/no-runtime-dependencies`]: 'off',
			'svc-community/no-runtime-dependencies': 'error',
		},
	},
	// The Cloud edition's platform files (issue 58): every rule of the plugin's recommended config,
	// with no exception (they replace the files that import bottleneck and libphonenumber-js).
	{
		files: ['cloud/platform/**/*.ts'],
		plugins: recommended.plugins,
		languageOptions: { parser: tsParser },
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules: recommended.rules,
	},
];
