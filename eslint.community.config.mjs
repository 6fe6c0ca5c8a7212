/**
 * n8n's current community-node lint (@n8n/eslint-plugin-community-nodes, the rules of n8n's
 * community-package scanner), run by `npm run lint` next to eslint-plugin-n8n-nodes-base
 * (.eslintrc.js). The plugin needs ESLint 9 and flat config; this repository keeps ESLint 8.57.1
 * for the older plugin, so this file runs under the `eslint9` alias (npm:eslint@9.29.0, the
 * version the plugin pins as its peer): `node node_modules/eslint9/bin/eslint.js -c <this file>`.
 *
 * Every rule of the plugin's `recommended` config (the n8n Cloud one) is on. The only exceptions
 * are the findings caused by the runtime dependencies this package chose on purpose (zod,
 * bottleneck, libphonenumber-js, ioredis — see README → Dependencies), each narrowed to exactly
 * those packages or files, plus two package.json fields listed below.
 */
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';

const PLUGIN = '@n8n/community-nodes';
const recommended = n8nCommunityNodesPlugin.configs.recommended;

/** The runtime dependencies chosen on purpose (README → Dependencies); nothing else is allowed. */
const CHOSEN_DEPENDENCIES = new Set(['zod', 'bottleneck', 'libphonenumber-js', 'ioredis']);

/**
 * Development-only `overrides` (npm applies overrides only in the project being installed; none of
 * these packages is in the runtime tree that n8n installs, which has no devDependencies):
 * isolated-vm 5.0.4 so that n8n-core's dev install builds on Node 20, and the peer ranges of this
 * lint plugin itself (eslint, n8n-workflow), which it runs with here.
 */
const DEV_ONLY_OVERRIDES = new Set(['isolated-vm', '@n8n/eslint-plugin-community-nodes']);

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

/**
 * The Redis glue of the shared rate limit (ioredis, and Bottleneck's ioredis datastore) has no node
 * context: it throws the typed RedisUnavailable, or passes a caught one on after cleaning up, and the
 * node-facing layer turns it into a NodeOperationError naming the credential setting to check
 * (transport/request.ts sharedLimitError, helpers/sendRecovery.ts openLedger).
 */
const REDIS_GLUE = ['transport/redis.ts', 'transport/sharedLimit.ts', 'transport/limiter.ts'].map((f) => `/nodes/SvcMessaging/${f}`);

const local = {
	rules: {
		// In the Redis glue only: re-throwing the caught error, or throwing RedisUnavailable. Any other
		// error class there, and everything elsewhere, is still reported.
		'require-node-api-error': narrowed(
			'require-node-api-error',
			(report, context) =>
				!REDIS_GLUE.some((file) => context.filename.endsWith(file)) ||
				!(report.messageId === 'useNodeApiError' || report.data?.errorClass === 'RedisUnavailable'),
		),
		// Imports of the chosen dependencies (libphonenumber-js/core etc. included); any other
		// package is still refused.
		'no-restricted-imports': narrowed(
			'no-restricted-imports',
			(report) => !CHOSEN_DEPENDENCIES.has(packageOf(String(report.data?.modulePath ?? ''))),
		),
		// `dependencies` may hold the chosen packages and nothing else.
		'no-runtime-dependencies': narrowed('no-runtime-dependencies', (_report, context) => {
			const names = topLevelKeys(context.sourceCode.ast, 'dependencies') ?? [];
			return names.some((name) => !CHOSEN_DEPENDENCIES.has(name));
		}),
		'no-overrides-field': narrowed('no-overrides-field', (_report, context) => {
			const names = topLevelKeys(context.sourceCode.ast, 'overrides') ?? [];
			return names.some((name) => !DEV_ONLY_OVERRIDES.has(name)) || topLevelKeys(context.sourceCode.ast, 'resolutions') !== undefined;
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
			[`${PLUGIN}/no-overrides-field`]: 'off',
			'svc-community/no-overrides-field': 'error',
			[`${PLUGIN}/require-node-api-error`]: 'off',
			'svc-community/require-node-api-error': 'error',
			// package.json has no author e-mail yet: the publisher's address goes there before the first
			// `npm publish`. Kept visible as a warning in every lint run instead of a made-up address.
			[`${PLUGIN}/valid-author`]: 'warn',
		},
	},
	{
		// The Redis glue of the shared rate limit (ioredis and Bottleneck's ioredis datastore) has no
		// node context: it throws the typed RedisUnavailable (or passes one on after cleaning up),
		// which the node-facing layer turns into a NodeOperationError with the credential setting to
		// check (transport/request.ts sharedLimitError, helpers/sendRecovery.ts openLedger).
		files: ['nodes/SvcMessaging/transport/redis.ts', 'nodes/SvcMessaging/transport/sharedLimit.ts', 'nodes/SvcMessaging/transport/limiter.ts'],
		rules: { [`${PLUGIN}/require-node-api-error`]: 'off' },
	},
];
